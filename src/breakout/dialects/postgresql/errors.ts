/**
 * pg driver errors -> AppError. pg puts the server's SQLSTATE in `err.code`
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html) and Node's socket code
 * (ECONNREFUSED, ENOTFOUND, …) there for network failures.
 */
import type { AppError } from '../../../shared/errors.js';
import type { ResolvedTarget } from '../target-config.js';
import { isTlsError, networkErrorCode, targetError, type TargetProblem } from '../target-errors.js';

const PRODUCT = 'PostgreSQL';

const BY_SQLSTATE: Record<string, TargetProblem> = {
  '28P01': 'auth', // invalid_password
  '28000': 'auth', // invalid_authorization_specification: unknown role, no pg_hba entry, NOLOGIN
  '3D000': 'no-database', // invalid_catalog_name
  '53300': 'too-many', // too_many_connections (also per-role and per-database limits)
  '57P03': 'unreachable', // cannot_connect_now: the server is starting or shutting down
  '42501': 'permission', // insufficient_privilege: "permission denied for schema public", for table ...
};

/** Classifies a pg error, or undefined when it is not about reaching the server. */
function classify(err: unknown): TargetProblem | undefined {
  if (isTlsError(err)) return 'tls';
  if (networkErrorCode(err)) return 'unreachable';
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? BY_SQLSTATE[code] : undefined;
}

/** Maps an error raised while connecting: always an AppError. */
export function connectError(err: unknown, target: ResolvedTarget): AppError {
  return targetError(classify(err) ?? 'unknown-connect', PRODUCT, target, err);
}

/** Maps an error raised by a statement: connection-level problems become AppErrors, SQL errors stay as they are. */
export function queryError(err: unknown, target: ResolvedTarget): unknown {
  const problem = classify(err);
  return problem ? targetError(problem, PRODUCT, target, err) : err;
}

/**
 * Whether a failed first attempt of `prefer`/`allow` may be retried the other way: the server
 * refused TLS, or refused the login (pg_hba may admit only `hostssl` or only `hostnossl`).
 * A server that is down or a wrong password is not retried.
 */
export function classifyFallback(err: unknown): boolean {
  if (isTlsError(err)) return true;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '28000';
}
