import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { requestFate } from './request-fate.js';

/**
 * One line per request on the log: time, method, path, status, duration, account. The query
 * string and headers are left out so no credential or token can end up in the log. The status is
 * `408` for a request dropped by the body or request timeout, and `aborted` for one that failed
 * because its client closed the connection (nothing was answered); a request that succeeded
 * although its client left keeps its status, since its work was done (docs/http-api.md).
 */
export function requestLog(log: (line: string) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round(performance.now() - started);
      const user = c.get('principal')?.username ?? '-';
      log(`${new Date().toISOString()} ${c.req.method} ${c.req.path} ${statusOf(c)} ${ms}ms ${user}`);
    }
  };
}

function statusOf(c: Context<AppEnv>): string {
  const fate = requestFate(c);
  if (fate === 'timeout') return '408';
  if (fate === 'aborted' && (c.error !== undefined || c.res.status >= 400)) return 'aborted';
  return String(c.res.status);
}
