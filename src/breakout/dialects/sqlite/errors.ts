/**
 * better-sqlite3 errors -> AppError. SqliteError carries the extended result code name in
 * `err.code` (https://www.sqlite.org/rescode.html).
 */
import type { AppError } from '../../../shared/errors.js';
import type { ResolvedTarget } from '../target-config.js';
import { targetError, type TargetProblem } from '../target-errors.js';

const PRODUCT = 'SQLite';

/** Classifies an error opening or using a SQLite file, or undefined. */
function classify(err: unknown): TargetProblem | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return undefined;
  // The file (or its directory) cannot be opened or created, or is not a SQLite database.
  if (
    code.startsWith('SQLITE_CANTOPEN') ||
    code === 'SQLITE_NOTADB' ||
    code === 'EACCES' ||
    code === 'ENOTDIR' ||
    code === 'EEXIST' ||
    code === 'EROFS'
  ) {
    return 'no-database';
  }
  return undefined;
}

/** Maps an error raised while opening: always an AppError. */
export function connectError(err: unknown, target: ResolvedTarget): AppError {
  return targetError(classify(err) ?? 'unknown-connect', PRODUCT, target, err);
}

/**
 * Maps an error raised by a statement: every SQLite result code (a full disk, a file made
 * read-only, a lock held past the busy timeout, ...) is an error of the target,
 * TARGET_DATABASE_ERROR; anything else (sds's own) stays as it is.
 */
export function queryError(err: unknown, target: ResolvedTarget): unknown {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? targetError('statement', PRODUCT, target, err, { label: code }) : err;
}
