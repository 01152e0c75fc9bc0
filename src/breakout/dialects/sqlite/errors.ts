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
