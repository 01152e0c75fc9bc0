/**
 * mysql2 errors -> AppError. mysql2 sets `err.code` to the server's symbolic error name and
 * `err.errno` to its number (https://mariadb.com/kb/en/mariadb-error-codes/), or to Node's socket
 * code for network failures.
 */
import type { AppError } from '../../../shared/errors.js';
import type { ResolvedTarget } from '../target-config.js';
import { isTlsError, networkErrorCode, targetError, type ServerError, type TargetProblem } from '../target-errors.js';

const PRODUCT = 'MySQL/MariaDB';

const BY_ERRNO: Record<number, TargetProblem> = {
  1044: 'auth', // ER_DBACCESS_DENIED_ERROR: the user may not use that database
  1045: 'auth', // ER_ACCESS_DENIED_ERROR: wrong user or password
  1698: 'auth', // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
  1049: 'no-database', // ER_BAD_DB_ERROR
  1040: 'too-many', // ER_CON_COUNT_ERROR: max_connections reached
  1203: 'too-many', // ER_TOO_MANY_USER_CONNECTIONS: max_user_connections reached
  1226: 'too-many', // ER_USER_LIMIT_REACHED (MAX_USER_CONNECTIONS of the account)
};

/**
 * Refusals of a statement for lack of rights. 1044 is also here: raised by a statement (CREATE
 * DATABASE, USE) it is a missing right, while raised by the login it stays `auth` (BY_ERRNO).
 */
const PERMISSION_ERRNOS = new Set([
  1044, // ER_DBACCESS_DENIED_ERROR: access denied for user to database
  1142, // ER_TABLEACCESS_DENIED_ERROR: "CREATE command denied to user ... for table ..."
  1143, // ER_COLUMNACCESS_DENIED_ERROR
  1227, // ER_SPECIFIC_ACCESS_DENIED_ERROR: needs SUPER, PROCESS, ...
  1370, // ER_PROCACCESS_DENIED_ERROR
  1410, // ER_CANT_CREATE_USER_WITH_GRANT
  1419, // ER_BINLOG_CREATE_ROUTINE_NEED_SUPER
]);

/** Classifies a mysql2 error raised while connecting, or undefined when it is not about reaching the server. */
function classify(err: unknown): TargetProblem | undefined {
  if (isTlsError(err)) return 'tls';
  if (networkErrorCode(err)) return 'unreachable';
  if (typeof err !== 'object' || err === null) return undefined;
  const { errno, code } = err as { errno?: unknown; code?: unknown };
  if (code === 'PROTOCOL_CONNECTION_LOST') return 'unreachable';
  return typeof errno === 'number' ? BY_ERRNO[errno] : undefined;
}

/** Classifies a mysql2 error raised by a statement: a missing right, else as classify. */
function classifyStatement(err: unknown): TargetProblem | undefined {
  const errno = typeof err === 'object' && err !== null ? (err as { errno?: unknown }).errno : undefined;
  if (typeof errno === 'number' && PERMISSION_ERRNOS.has(errno)) return 'permission';
  return classify(err);
}

/** Whether the server (or client) refused LOAD DATA LOCAL, so the INSERT fallback applies. */
export function isLocalInfileRefused(err: unknown): boolean {
  const errno = typeof err === 'object' && err !== null ? (err as { errno?: unknown }).errno : undefined;
  // 1148 ER_NOT_ALLOWED_COMMAND (older servers), 4166 ER_LOAD_INFILE_CAPABILITY_DISABLED (MariaDB 10.5+),
  // 3948 ER_CLIENT_LOCAL_FILES_DISABLED (MySQL 8), 2068 CR_LOAD_DATA_LOCAL_INFILE_REJECTED (client side)
  return errno === 1148 || errno === 4166 || errno === 3948 || errno === 2068;
}

/** Maps an error raised while connecting: always an AppError. */
export function connectError(err: unknown, target: ResolvedTarget): AppError {
  return targetError(classify(err) ?? 'unknown-connect', PRODUCT, target, err);
}

/** The server's own codes of an error it answered (mysql2 gives those a SQLSTATE), else undefined. */
function serverError(err: unknown): ServerError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { errno, sqlState, code } = err as { errno?: unknown; sqlState?: unknown; code?: unknown };
  if (typeof errno !== 'number' || typeof sqlState !== 'string') return undefined;
  return { label: `error ${errno}${typeof code === 'string' ? ` (${code})` : ''}`, codes: { errno, sqlState } };
}

/**
 * Maps an error raised by a statement: every error the server answered becomes an AppError (an
 * unmapped one is TARGET_DATABASE_ERROR), as do connection-level problems; anything else (sds's
 * own) stays as it is.
 */
export function queryError(err: unknown, target: ResolvedTarget): unknown {
  const server = serverError(err);
  const problem = classifyStatement(err) ?? (server ? 'statement' : undefined);
  return problem ? targetError(problem, PRODUCT, target, err, server) : err;
}
