import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, toAppError } from '../shared/errors.js';
import { requestFate } from './request-fate.js';
import type { LogLevel } from './config.js';
import { reportedError } from '../core/breakout/index.js';
import { hideServerPaths } from './hide-server-paths.js';
import { isCsproClient } from '../core/sync/index.js';

/** Turns anything thrown into an AppError; Hono's own exceptions keep their status meaning. */
function normalise(err: unknown): AppError {
  if (err instanceof HTTPException) {
    if (err.status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'the request body is too large');
    if (err.status >= 400 && err.status < 500) return new AppError('USAGE', err.message || 'bad request');
  }
  return reportedError(toAppError(err));
}

/**
 * Details that error bodies show (docs/http-api.md#errors): the tables that block a start
 * (`existing_tables`, 409), what to do when a dictionary has no tables (`suggestion`, 404) and
 * the seconds to wait when rate-limited (`retry_after`, 429, also sent as Retry-After), and the
 * catalogue code of a target failure (`diagnostic`: `DB-001` … under `DB_CONNECTION_ERROR`).
 * Other details stay server-side: they may name paths or internals.
 */
const PUBLIC_DETAILS = ['existing_tables', 'suggestion', 'retry_after', 'diagnostic'] as const;

/** Codes of a refusal by a limit, and the details their bodies carry (docs/limits.md). */
const LIMIT_CODES = new Set<string>(['CASE_TOO_LARGE', 'JSON_TOO_DEEP', 'PAYLOAD_TOO_LARGE']);
const LIMIT_DETAILS = ['case', 'id', 'index', 'field', 'limit'] as const;

function quoted(s: string): string {
  return `"${s.replace(/["\\]/g, "'")}"`;
}

/**
 * The one place errors become responses. OAuth failures (marked by `details.oauth_error`) use the
 * token error shape `{error, error_description}` with `WWW-Authenticate` on invalid_token; all
 * others use the spec's `{error, message}`, plus the PUBLIC_DETAILS the error carries, with the
 * registry's status. Internal errors never show their message or stack to the client: those go
 * to the server log. A request whose client is gone is answered with nothing (request-fate.ts).
 * A CSPro client reads `{code, message}` and takes a body without them for an HTML page
 * (docs/sync.md#errors): its bodies carry `code` as well (and `message` in the OAuth shape), the
 * error's `csweb_code` detail when it has one, else the same code as `error`.
 */
export function errorResponse(c: Context, thrown: unknown, log?: (line: string, level?: LogLevel) => void): Response {
  // A client that left (or was dropped by the body timeout) gets nothing, whatever its body's
  // reader threw: not an internal error, and the request log says `aborted` (or 408). The
  // status below (499: nginx's "client closed request") is never sent: serve.ts writes nothing
  // on a closed or already answered connection.
  const fate = requestFate(c);
  if (fate) return new Response(null, { status: fate === 'timeout' ? 408 : 499 });
  const err = normalise(thrown);
  const status = err.http as ContentfulStatusCode;
  c.header('Cache-Control', 'no-store');
  const cswebCode = typeof err.details.csweb_code === 'string' ? err.details.csweb_code : undefined;
  const cspro = isCsproClient(c.req.header('user-agent'));
  const oauth = err.details.oauth_error;
  if (typeof oauth === 'string') {
    if (oauth === 'invalid_token') {
      c.header('WWW-Authenticate', `Bearer realm="sds", error="invalid_token", error_description=${quoted(err.message)}`);
    }
    if (cspro) return c.json({ error: oauth, error_description: err.message, code: oauth, message: err.message }, status);
    return c.json({ error: oauth, error_description: err.message }, status);
  }
  const code = cswebCode ?? (cspro ? err.code : undefined);
  if (err.code === 'INTERNAL') {
    const cause = err.cause instanceof Error ? err.cause : err;
    log?.(`sds serve: internal error on ${c.req.method} ${c.req.path}: ${cause.stack ?? cause.message}`, 'error');
    const message = 'internal error; the server log has the details';
    return c.json(code === undefined ? { error: err.code, message } : { error: err.code, code, message }, status);
  }
  // A rate limit (API-004) says when to come back, in the header and in the body
  // (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts).
  if (typeof err.details.retry_after === 'number') c.header('Retry-After', String(err.details.retry_after));
  const extra: Record<string, unknown> = {};
  for (const key of PUBLIC_DETAILS) {
    const value = err.details[key];
    if (value !== undefined) extra[key] = typeof value === 'string' ? hideServerPaths(value) : value;
  }
  // Core says what to do in domain words; the API adds the route that does it (as the CLI adds its command).
  if (typeof extra.suggestion === 'string' && err.code === 'NOT_FOUND') extra.suggestion += ' (POST /api/breakout/start)';
  // A refusal by a limit says which case, field and limit in `details` (docs/limits.md).
  if (LIMIT_CODES.has(err.code)) {
    const details: Record<string, unknown> = {};
    for (const key of LIMIT_DETAILS) if (err.details[key] !== undefined) details[key] = err.details[key];
    extra.details = details;
  }
  // Every bad line of a CSV of accounts, with its line (docs/supervision.md#accounts).
  if (err.code === 'USERS_IMPORT_INVALID' && Array.isArray(err.details.errors)) extra.details = { errors: err.details.errors };
  // A message may name a file of the server (a SQLite target): the reply shows only its name.
  const message = hideServerPaths(err.message);
  return c.json(code === undefined ? { error: err.code, message, ...extra } : { error: err.code, code, message, ...extra }, status);
}
