/**
 * Shared pieces of driver-error mapping: socket error codes every Node driver surfaces, and the
 * messages of the DB-00x codes. Each dialect's errors.ts decides which driver error is which code.
 * Messages name `host:port/database` and the user, never the password (mask-passwords.ts).
 */
import { AppError, type ErrorCode } from '../../shared/errors.js';
import { maskPasswords } from './mask-passwords.js';
import type { ResolvedTarget } from './target-config.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'EADDRNOTAVAIL',
]);

/** The socket error code of `err` (also inside Node 20's AggregateError from happy-eyeballs connects). */
export function networkErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner)) {
    for (const e of inner) {
      const c = networkErrorCode(e);
      if (c) return c;
    }
  }
  const cause = (err as { cause?: unknown }).cause;
  return cause && cause !== err ? networkErrorCode(cause) : undefined;
}

/** OpenSSL's certificate verification codes that Node puts in `err.code`. */
const TLS_VERIFY_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/**
 * Whether `err` is a failed TLS negotiation: the server refused TLS, its certificate did not
 * verify (chain or host name), or the handshake broke. Checked before the socket codes.
 */
export function isTlsError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (code.startsWith('ERR_TLS_') ||
      code.startsWith('ERR_SSL_') ||
      TLS_VERIFY_CODES.has(code) ||
      code === 'HANDSHAKE_NO_SSL_SUPPORT' ||
      code === 'HANDSHAKE_SSL_ERROR')
  ) {
    return true;
  }
  // pg's answer to a server that says 'N' to the SSLRequest has no code.
  if (typeof message === 'string' && /server does not support SSL|error establishing an SSL connection/i.test(message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? isTlsError(cause) : false;
}

/**
 * Which situation a driver error is: a DB-00x one, a missing right, or `statement`, an error the
 * database answered that none of the others names (undefined: not an error of the database).
 */
export type TargetProblem = 'unreachable' | 'auth' | 'no-database' | 'too-many' | 'unknown-connect' | 'permission' | 'tls' | 'statement';

const CODE: Record<TargetProblem, ErrorCode> = {
  unreachable: 'DB-001',
  auth: 'DB-002',
  'no-database': 'DB-003',
  'too-many': 'DB-005',
  'unknown-connect': 'DB_CONNECTION_ERROR',
  // No catalogue code names a failed TLS negotiation: the spec's connection code, the message says TLS.
  tls: 'DB_CONNECTION_ERROR',
  // The target's user lacks a right (CREATE, INSERT, ...): a job fails with the spec's code (docs/breakout.md).
  permission: 'INSUFFICIENT_PERMISSIONS',
  // Any other error the database answered is the target's, never INTERNAL (a defect of sds): docs/breakout.md#targets.
  statement: 'TARGET_DATABASE_ERROR',
};

/** What a dialect knows of an error its server answered, beside the driver's own code. */
export interface ServerError {
  /** The server's code as an operator looks it up, for the message: `SQLSTATE 3F000`, `error 1406 (ER_DATA_TOO_LONG)`. */
  label?: string;
  /** The server's own codes for `details`, beside `driverCode`: `errno` and `sqlState`, `number`. */
  codes?: Record<string, string | number>;
  /** What fixes it, in the database's words (a GRANT), appended to the message. */
  hint?: string;
}

/** Builds the AppError for a classified driver error. */
export function targetError(
  problem: TargetProblem,
  product: string,
  target: ResolvedTarget,
  err: unknown,
  server: ServerError = {},
): AppError {
  const driverMessage = err instanceof Error ? err.message : String(err);
  const driverCode = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  // The password could only reach a message through a driver echoing a connection string or option.
  const reason = maskPasswords(driverMessage) || String(networkErrorCode(err) ?? 'unknown error');
  const where = target.label;
  const messages: Record<TargetProblem, string> = {
    unreachable: `cannot connect to ${product} at ${where}: ${reason}`,
    auth: `${product} at ${where} refused the login of user '${target.user}': ${reason}`,
    'no-database': `the ${product} database '${target.database}' does not exist (${where}): ${reason}`,
    'too-many': `${product} at ${where} has too many connections: ${reason}`,
    'unknown-connect': `cannot open a ${product} session at ${where}: ${reason}`,
    permission: `${product} at ${where} refused user '${target.user}' for lack of rights: ${reason}`,
    tls: `TLS (${target.tls.mode}) with ${product} at ${where} failed: ${reason}`,
    statement: `${product} at ${where} answered a statement with ${server.label ?? 'an error'}: ${reason}`,
  };
  const details = {
    target: where,
    ...(problem === 'tls' ? { tls_mode: target.tls.mode } : {}),
    ...(typeof driverCode === 'string' || typeof driverCode === 'number' ? { driverCode } : {}),
    ...server.codes,
  };
  const message = server.hint ? `${messages[problem]}; ${server.hint}` : messages[problem];
  return new AppError(CODE[problem], message, details, { cause: err });
}
