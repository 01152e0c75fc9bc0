import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv } from './app-env.js';
import { escapeLogText } from '../shared/log-escape.js';
import { requestFate } from './request-fate.js';

/** What the request log records of one request (docs/logs.md#json-lines): never headers, query strings or tokens. */
export interface RequestLogEntry {
  time: Date;
  requestId: string;
  method: string;
  /** The route template that answered (`/api/dictionaries/:name`); null when no route matched. */
  route: string | null;
  /** The path, without its query string. */
  path: string;
  /** 408 for a request dropped by the body or request timeout. */
  status: number;
  /** The client closed the connection and got no reply. */
  aborted: boolean;
  durationMs: number;
  /** The account of the access token; null when none was given. */
  account: string | null;
}

/** A field of the text line: its control characters escaped, and its spaces, so it stays one field. */
function field(text: string): string {
  return escapeLogText(text).replaceAll(' ', '\\x20');
}

/**
 * The text line of a request, as `sds serve` has always written it: time, method, path, status,
 * duration, account (`-` without one); the status reads `aborted` for a request that failed
 * because its client closed the connection (docs/http-api.md). Always one line of six fields:
 * what the client sent is escaped (docs/logs.md#control-characters).
 */
export function requestLine(e: RequestLogEntry): string {
  const status = e.aborted ? 'aborted' : String(e.status);
  return `${e.time.toISOString()} ${field(e.method)} ${field(e.path)} ${status} ${e.durationMs}ms ${e.account === null ? '-' : field(e.account)}`;
}

/**
 * One log entry per request. The query string and headers are left out so no credential or token
 * can end up in the log. The status is `408` for a request dropped by the body or request
 * timeout, and aborted for one that failed because its client closed the connection (nothing
 * was answered); a request that succeeded although its client left keeps its status, since its
 * work was done (docs/http-api.md).
 */
export function requestLog(write: (entry: RequestLogEntry) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const fate = requestFate(c);
      write({
        time: new Date(),
        requestId: c.get('requestId'),
        method: c.req.method,
        route: routeOf(c),
        path: c.req.path,
        status: fate === 'timeout' ? 408 : c.res.status,
        aborted: fate === 'aborted' && (c.error !== undefined || c.res.status >= 400),
        durationMs: Math.round(performance.now() - started),
        account: c.get('principal')?.username ?? null,
      });
    }
  };
}

/** The template of the route that answered; a wildcard of a middleware (no route matched) is none. */
function routeOf(c: Context<AppEnv>): string | null {
  const path = routePath(c);
  return path.endsWith('*') ? null : path;
}
