import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { UNMATCHED_ROUTE, type ServerMetrics } from './prometheus.js';
import { requestFate } from './request-fate.js';

/**
 * Counts every request in `metrics` by method, route template and status, with its duration.
 * The route is the template the ApiBuilder recorded (`/api/dictionaries/{name}/cases`), never
 * the raw path, so label values stay bounded; a request no route took is UNMATCHED_ROUTE, and a
 * method outside the usual ones is `other`. A request dropped by a timeout counts as 408, as the
 * request log writes it (docs/http-api.md#limits-and-timeouts).
 */
export function httpMetrics(metrics: ServerMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const status = requestFate(c) === 'timeout' ? 408 : c.error !== undefined && c.res.status < 400 ? 500 : c.res.status;
      metrics.request(methodLabel(c.req.method), c.get('route') ?? UNMATCHED_ROUTE, status, (performance.now() - started) / 1000);
    }
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/** Any token is a valid HTTP method: an unusual one must not make a new label value per request. */
function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}
