import { AppError, type ErrorCode } from '../../../shared/errors.js';
import type { JobError } from '../../../store/jobs-repo.js';

/**
 * The spec's breakout codes (docs/errors.md) that a job's `error.code` carries, by the catalogue or API
 * code that was thrown. The thrown code is kept in `details` as `diagnostic`, so the DB-00x
 * distinction (refused, authentication, no database, driver, too many connections) is not lost.
 */
const BREAKOUT_CODE: Partial<Record<ErrorCode, ErrorCode>> = {
  'DB-001': 'DB_CONNECTION_ERROR',
  'DB-002': 'DB_CONNECTION_ERROR',
  'DB-003': 'DB_CONNECTION_ERROR',
  'DB-004': 'DB_CONNECTION_ERROR',
  'DB-005': 'DB_CONNECTION_ERROR',
  DB_CONNECTION_ERROR: 'DB_CONNECTION_ERROR',
  'BRK-001': 'DICTIONARY_NOT_FOUND',
  DICTIONARY_NOT_FOUND: 'DICTIONARY_NOT_FOUND',
  'BRK-004': 'TABLES_ALREADY_EXIST',
  TABLES_ALREADY_EXIST: 'TABLES_ALREADY_EXIST',
  INVALID_THREADS: 'INVALID_THREADS',
  'AUTH-004': 'INSUFFICIENT_PERMISSIONS',
  INSUFFICIENT_PERMISSIONS: 'INSUFFICIENT_PERMISSIONS',
};

/** True when `e` means the target database cannot be used (a job fails with DB_CONNECTION_ERROR). */
export function isTargetConnectionError(e: AppError): boolean {
  return BREAKOUT_CODE[e.code] === 'DB_CONNECTION_ERROR';
}

/**
 * The `error` of a failed job (docs/http-api.md#breakout-routes: code, message, details as a string). `code` is one of
 * the spec's breakout codes; a failure none of them names (a bug, a name collision) keeps its
 * own code. `details` is JSON: `diagnostic` (the catalogue code thrown) then the error's details.
 */
export function jobError(e: AppError): JobError {
  return {
    code: BREAKOUT_CODE[e.code] ?? e.code,
    message: e.message,
    details: JSON.stringify({ diagnostic: e.code, ...e.details }),
  };
}

/**
 * A target failure as every surface reports it (docs/errors.md, "One code per failure"): the
 * code a job records (`DB_CONNECTION_ERROR`, docs/errors.md) with the catalogue code (`DB-001` …) as
 * `details.diagnostic`, so `target test`, `breakout tables`, an HTTP reply and a failed job
 * name a refused connection the same way. Other errors are returned as they are.
 */
export function reportedError(e: AppError): AppError {
  if (!isTargetConnectionError(e) || e.details.diagnostic !== undefined) return e;
  const details = { diagnostic: e.code, ...e.details };
  return new AppError('DB_CONNECTION_ERROR', e.message, details, { cause: e.cause ?? e });
}

/** `DB_CONNECTION_ERROR (DB-001)` for logs: the job's code, and the catalogue code when it differs. */
export function jobErrorLabel(error: JobError): string {
  let diagnostic: unknown;
  try {
    diagnostic = (JSON.parse(error.details) as { diagnostic?: unknown }).diagnostic;
  } catch {
    diagnostic = undefined;
  }
  return typeof diagnostic === 'string' && diagnostic !== error.code ? `${error.code} (${diagnostic})` : error.code;
}
