import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { monitoringReadings, readinessProbe } from '../../core/health/index.js';
import { AppError } from '../../shared/errors.js';
import { currentNode } from '../../shared/node-id.js';
import type { ApiBuilder } from '../api-builder.js';
import type { AppEnv } from '../app-env.js';
import { errorResponse } from '../render-error.js';
import { ErrorBody, json } from '../schemas/common.js';
import { Liveness, NotReady, Ready } from '../schemas/health.js';
import type { RouteDeps } from './route-deps.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Health, readiness and metrics for operators (docs/http-api.md#health-and-readiness,
 * docs/metrics.md). `/healthz` touches nothing but the process, so a busy store never makes a
 * supervisor restart a healthy server; `/readyz` checks what serving needs.
 */
export function healthRoutes(api: ApiBuilder, deps: RouteDeps): void {
  const { store, clock } = deps;
  const readiness = readinessProbe(store, deps.health, clock, deps.health.readyCacheMs);
  api.route({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process answers',
    description: 'No token, no store access: 200 as long as the server process answers requests.',
    tags: ['health'],
    permission: 'public',
    responses: { 200: json(Liveness, 'the process is alive') },
    handler: (c) => c.json({ status: 'ok' as const }, 200, NO_STORE),
  });

  api.route({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the store takes writes, its schema is current, the disk has room',
    description:
      'No token. Checks `store` (a write commits), `migrations` (the store is at the schema version this sds needs; otherwise run ' +
      '`sds migrate`) and `disk` (free space of the home’s file system at or above `SDS_READY_MIN_FREE_BYTES`, default 1 GiB). ' +
      '503 names the failing checks in `failed`. `node` names the server that answered. An answer is reused for `SDS_READY_CACHE_MS` (default 1000 ms), so polling ' +
      'costs the store at most one probe write per period.',
    tags: ['health'],
    permission: 'public',
    responses: { 200: json(Ready, 'every check passed'), 503: json(NotReady, 'a check failed; `failed` names it') },
    handler: async (c) => {
      const r = await readiness();
      const node = currentNode().id;
      if (r.ready) return c.json({ status: 'ready' as const, node, checks: r.checks }, 200, NO_STORE);
      return c.json({ status: 'not_ready' as const, node, failed: r.failed, checks: r.checks }, 503, NO_STORE);
    },
  });

  const prometheus = deps.prometheus;
  api.route({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    description:
      'The Prometheus text format (docs/metrics.md); with `sds serve --workers N`, of every worker together. Only with `SDS_METRICS_TOKEN` set: `Authorization: Bearer <SDS_METRICS_TOKEN>`, ' +
      'a static token of its own, never an OAuth access token. Without the variable the route answers 404 as if absent.',
    tags: ['health'],
    permission: 'public',
    security: [{ metricsToken: [] }],
    responses: {
      200: { description: 'the metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
      401: json(ErrorBody, 'the bearer token is missing or is not SDS_METRICS_TOKEN (`METRICS_TOKEN_INVALID`)'),
      404: json(ErrorBody, 'SDS_METRICS_TOKEN is not set: the route is off (`API-002`)'),
    },
    handler: async (c) => {
      // Off: the same 404 as any path no route takes, so a scanner cannot tell the route exists.
      if (!prometheus) return errorResponse(c, new AppError('API-002', `no route ${c.req.path}`));
      if (!bearerMatches(c, prometheus.token)) {
        c.header('WWW-Authenticate', 'Bearer realm="sds-metrics"');
        return errorResponse(c, new AppError('METRICS_TOKEN_INVALID', 'the metrics route needs Authorization: Bearer <SDS_METRICS_TOKEN>'));
      }
      const readings = await monitoringReadings(store, clock());
      // With --workers N, the whole server: the other workers' shares added in (docs/metrics.md#workers).
      const workers = prometheus.workers;
      const text = workers
        ? await prometheus.metrics.scrapeWorkers(readings, deps.uploadMemory, workers.index, await workers.gather())
        : await prometheus.metrics.scrape(readings, deps.uploadMemory);
      return c.body(text, 200, { 'Content-Type': prometheus.metrics.registry.contentType, ...NO_STORE });
    },
  });
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Compares in constant time: both sides are hashed first, so neither length nor content leaks. */
function bearerMatches(c: Context<AppEnv>, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(c.req.header('Authorization') ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}
