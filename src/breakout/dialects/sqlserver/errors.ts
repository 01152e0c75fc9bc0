/**
 * tedious errors -> AppError. tedious reports network failures as ConnectionError code ESOCKET
 * (the socket error as `cause`) or ETIMEOUT, and every login failure as code ELOGIN with the
 * server's message; the session records the server's error number from the `errorMessage` event
 * as `err.number` (https://learn.microsoft.com/en-us/sql/relational-databases/errors-events/database-engine-events-and-errors).
 */
import type { AppError } from '../../../shared/errors.js';
import type { ResolvedTarget } from '../target-config.js';
import { isTlsError, networkErrorCode, targetError, type TargetProblem } from '../target-errors.js';

const PRODUCT = 'SQL Server';

const BY_NUMBER: Record<number, TargetProblem> = {
  18456: 'auth', // Login failed for user
  18452: 'auth', // untrusted domain login
  18486: 'auth', // account locked out
  18487: 'auth', // password expired
  18488: 'auth', // password must be changed
  4060: 'no-database', // Cannot open database requested by the login
  911: 'no-database', // Database does not exist (USE)
  17809: 'too-many', // maximum number of user connections reached
  10928: 'too-many', // Azure SQL: resource limit (sessions/workers) reached
  229: 'permission', // The %ls permission was denied on the object
  230: 'permission', // The %ls permission was denied on the column
  262: 'permission', // CREATE TABLE (or another) permission denied in database
  297: 'permission', // The user does not have permission to perform this action
  300: 'permission', // VIEW SERVER STATE (or another) permission was denied
};

/** Classifies a tedious error, or undefined when it is not about reaching the server. */
function classify(err: unknown): TargetProblem | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, number, message } = err as { code?: unknown; number?: unknown; message?: unknown };
  if (typeof number === 'number' && BY_NUMBER[number]) return BY_NUMBER[number];
  if (isTlsError(err)) return 'tls';
  if (code === 'ESOCKET' || code === 'ETIMEOUT' || networkErrorCode(err)) return 'unreachable';
  if (code === 'ELOGIN') {
    const text = String(message ?? '');
    if (/cannot open database/i.test(text)) return 'no-database';
    if (/maximum number of .*connections/i.test(text)) return 'too-many';
    return 'auth';
  }
  return undefined;
}

/** Maps an error raised while connecting: always an AppError. */
export function connectError(err: unknown, target: ResolvedTarget): AppError {
  return targetError(classify(err) ?? 'unknown-connect', PRODUCT, target, err);
}

/**
 * Maps an error raised by a statement: every error the server answered (tedious's RequestError
 * carries its number) becomes an AppError, an unmapped one (and 911, a database gone under a
 * running session) TARGET_DATABASE_ERROR; a connection closed on the way is DB-001; anything else
 * (sds's own) stays as it is.
 */
export function queryError(err: unknown, target: ResolvedTarget): unknown {
  const number = typeof err === 'object' && err !== null ? (err as { number?: unknown }).number : undefined;
  const server = typeof number === 'number' ? { label: `error ${number}`, codes: { number } } : undefined;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const known = classify(err);
  const problem = known && known !== 'no-database' ? known : server ? 'statement' : code === 'ECLOSE' ? 'unreachable' : undefined;
  return problem ? targetError(problem, PRODUCT, target, err, server) : err;
}
