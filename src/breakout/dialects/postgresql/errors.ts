/**
 * pg driver errors -> AppError. pg puts the server's SQLSTATE in `err.code`
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html) and Node's socket code
 * (ECONNREFUSED, ENOTFOUND, …) there for network failures.
 */
import type { AppError } from '../../../shared/errors.js';
import type { ResolvedTarget } from '../target-config.js';
import { isTlsError, networkErrorCode, targetError, type ServerError, type TargetProblem } from '../target-errors.js';

const PRODUCT = 'PostgreSQL';

const BY_SQLSTATE: Record<string, TargetProblem> = {
  '28P01': 'auth', // invalid_password
  '28000': 'auth', // invalid_authorization_specification: unknown role, no pg_hba entry, NOLOGIN
  '3D000': 'no-database', // invalid_catalog_name
  '53300': 'too-many', // too_many_connections (also per-role and per-database limits)
  '57P03': 'unreachable', // cannot_connect_now: the server is starting or shutting down
  '42501': 'permission', // insufficient_privilege: "permission denied for schema public", for table ...
  // invalid_schema_name: "no schema has been selected to create in", a user with no schema of
  // its search_path that it may use (PostgreSQL 15 takes CREATE on public from PUBLIC).
  '3F000': 'permission',
};

/** What fixes a missing right, in PostgreSQL's words (docs/breakout.md#targets). */
function hint(sqlstate: string, user: string): string | undefined {
  const role = `"${user.replace(/"/g, '""')}"`;
  if (sqlstate === '3F000') {
    return `the user has no schema to create tables in: grant it USAGE and CREATE on one (GRANT USAGE, CREATE ON SCHEMA public TO ${role}) or set its search_path to a schema where it has them (ALTER ROLE ${role} SET search_path = that_schema)`;
  }
  if (sqlstate === '42501') {
    return `grant the user the right named (a breakout needs USAGE and CREATE on the first schema of its search_path, e.g. GRANT USAGE, CREATE ON SCHEMA public TO ${role}, and writes only tables it created)`;
  }
  return undefined;
}

/** pg's own words for a connection that broke during a statement (these errors carry no code). */
const CONNECTION_LOST = /^Connection terminated|connection error and is not queryable|Client was closed and is not queryable/i;

/** Classifies a pg error, or undefined when it is not about reaching the server. */
function classify(err: unknown): TargetProblem | undefined {
  if (isTlsError(err)) return 'tls';
  if (networkErrorCode(err)) return 'unreachable';
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? BY_SQLSTATE[code] : undefined;
}

/** The SQLSTATE of an error the server answered (pg's DatabaseError has a severity), else undefined. */
function serverSqlstate(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' ? code : undefined;
}

/** Maps an error raised while connecting: always an AppError. */
export function connectError(err: unknown, target: ResolvedTarget): AppError {
  return targetError(classify(err) ?? 'unknown-connect', PRODUCT, target, err);
}

/**
 * Maps an error raised by a statement: every error the server answered, and a connection lost on
 * the way, becomes an AppError (an unmapped SQLSTATE is TARGET_DATABASE_ERROR); anything else
 * (sds's own) stays as it is.
 */
export function queryError(err: unknown, target: ResolvedTarget): unknown {
  const sqlstate = serverSqlstate(err);
  const lost = err instanceof Error && CONNECTION_LOST.test(err.message);
  const problem = classify(err) ?? (sqlstate ? 'statement' : lost ? 'unreachable' : undefined);
  if (!problem) return err;
  const server: ServerError = sqlstate ? { label: `SQLSTATE ${sqlstate}`, hint: hint(sqlstate, target.user) } : {};
  return targetError(problem, PRODUCT, target, err, server);
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
