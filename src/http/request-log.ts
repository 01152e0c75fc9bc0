import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

/**
 * One line per request on the log: time, method, path, status, duration, account. The query
 * string and headers are left out so no credential or token can end up in the log.
 */
export function requestLog(log: (line: string) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round(performance.now() - started);
      const user = c.get('principal')?.username ?? '-';
      log(`${new Date().toISOString()} ${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms ${user}`);
    }
  };
}
