/**
 * A PostgreSQL server that cannot be reached while sds runs (docs/production.md#while-the-primary-is-away):
 * a refused or reset connection, a connection the server ended (a shutdown, a switchover), one
 * that did not open or answer within the store's timeouts. Each becomes STORE_UNAVAILABLE (503)
 * rather than an internal error (500), so a load balancer and a tablet see "try again later".
 */
import { AppError } from '../../shared/errors.js';

/** Socket errors of a server that is down or cut off. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that ended or refuses connections: class 08 (connection exception),
 * admin_shutdown, crash_shutdown, cannot_connect_now (starting up or a standby being promoted),
 * too_many_connections; and read_only_sql_transaction: a write reached a server that takes none
 * (a standby, a primary demoted in a switchover, or one set `default_transaction_read_only`).
 * sds writes only in transactions of its own that are not read-only, so there it means the server,
 * not the statement (docs/decisions.md, "A store server that takes no writes").
 */
const SERVER_CODES = /^(08...|57P01|57P02|57P03|53300|25006)$/;
const READ_ONLY = '25006';

/** node-pg's own errors for a connection lost or never made (they carry no code). */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  // A new connection past its connectionTimeoutMillis (the socket destroyed with this error).
  /^timeout expired$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
];

function isConnectionLoss(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.test(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && PG_MESSAGES.some((re) => re.test(message));
}

/**
 * `err` as STORE_UNAVAILABLE when it is the loss of the server, else unchanged. The message names
 * the kind of failure, not the server's address: it reaches HTTP clients; the original error is
 * its cause, for the server's log.
 */
export function storeUnavailableOr(err: unknown): unknown {
  if (err instanceof AppError || !isConnectionLoss(err)) return err;
  const code = (err as { code?: unknown }).code;
  const what = typeof code === 'string' ? code : (err as Error).message;
  return new AppError(
    'STORE_UNAVAILABLE',
    code === READ_ONLY
      ? `the PostgreSQL server of the store takes no writes (${code}: a standby, or a primary being switched over); try again later`
      : `the PostgreSQL server of the store cannot be reached (${what}); try again later`,
    {},
    { cause: err },
  );
}
