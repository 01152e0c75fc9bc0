import { Hono } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { secureHeaders } from 'hono/secure-headers';
import { AppError } from '../shared/errors.js';
import { MemoryBudget } from '../shared/memory-budget.js';
import { accessTokenKey, createTokenService } from '../core/auth/index.js';
import { type Store, useLimits } from '../core/home/index.js';
import { healthSettings } from '../core/health/index.js';
import { ApiBuilder } from './api-builder.js';
import type { AppEnv } from './app-env.js';
import { httpConfig, serverLimits, loginGuardOf, type HttpConfig } from './config.js';
import { loginEventLine } from './login-log.js';
import { httpMetrics } from './http-metrics.js';
import { ServerMetrics } from './prometheus.js';
import { errorResponse } from './render-error.js';
import { requestId } from './request-id.js';
import { requestLine, requestLog } from './request-log.js';
import { auditRoutes } from './routes/audit.js';
import { breakoutRoutes } from './routes/breakout.js';
import { caseRoutes } from './routes/cases.js';
import { dictionaryRoutes } from './routes/dictionaries.js';
import { exportRoutes } from './routes/export.js';
import { fileRoutes } from './routes/files.js';
import { healthRoutes } from './routes/health.js';
import { openApiRoutes } from './routes/openapi.js';
import { schedulerRoutes } from './routes/scheduler.js';
import { rootScriptRoutes } from './routes/root-scripts.js';
import type { RouteDeps } from './routes/route-deps.js';
import { tokenRoutes } from './routes/token.js';
import { syncRoutes } from './routes/sync.js';
import { userRoutes } from './routes/users.js';
import { dataSourceRoutes } from './routes/data-source.js';
import { roleRoutes } from './routes/roles.js';
import { webhookRoutes } from './routes/webhooks.js';
import { reportRoutes } from './routes/reports.js';
import { INLINE_CHECKER, type UploadChecker } from '../core/sync/index.js';

export interface AppDeps {
  store: Store;
  /** Current time in epoch milliseconds (default Date.now); injectable for token expiry tests. */
  clock?: () => number;
  config?: Partial<HttpConfig>;
  /** Where sync uploads are checked (default: on the request's thread); `sds serve` passes its CheckPool. */
  checker?: UploadChecker;
}

/** Route groups, each in `routes/<group>.ts`; add a group here to extend the API. */
const GROUPS: ((api: ApiBuilder, deps: RouteDeps) => void)[] = [
  tokenRoutes,
  dictionaryRoutes,
  caseRoutes,
  exportRoutes,
  fileRoutes,
  syncRoutes,
  dataSourceRoutes,
  breakoutRoutes,
  schedulerRoutes,
  webhookRoutes,
  roleRoutes,
  reportRoutes,

  auditRoutes,
  rootScriptRoutes,
  userRoutes,
  healthRoutes,
  openApiRoutes,
];

/**
 * Builds the HTTP API over the core: a Hono app usable with `app.request()` (no port) or served by
 * `serve.ts`. Routes parse, call one core function and render; every error leaves as JSON.
 */
export async function createApp(deps: AppDeps): Promise<Hono<AppEnv>> {
  const config = httpConfig(deps.config);
  const guard = loginGuardOf(config, deps.store.home);
  // Core reads the store's limits on every write and page (core/home/limits.ts): set them once here.
  const limits = serverLimits(config, deps.store.home);
  useLimits(deps.store, limits);
  config.trustedProxies = guard.trustedProxies;
  // Read at start, so a bad SDS_READY_MIN_FREE_BYTES or SDS_METRICS_TOKEN stops the start.
  const settings = healthSettings(deps.store.home, config.env);
  const health = {
    minFreeBytes: config.health?.minFreeBytes ?? settings.minFreeBytes,
    readyCacheMs: config.health?.readyCacheMs ?? settings.readyCacheMs,
    statfs: config.health?.statfs,
  };
  const token = metricsToken(config);
  // Collected only when someone may read them: without a token, requests pay nothing for metrics.
  const prometheus = token === undefined ? undefined : { metrics: new ServerMetrics(), token, workers: config.workerMetrics };
  // A scrape taken by another worker asks this one for its share (docs/metrics.md#workers).
  const link = prometheus?.workers;
  if (prometheus && link) link.answer(() => prometheus.metrics.workerShare(link.index));
  const tokens = createTokenService({
    store: deps.store,
    key: await accessTokenKey(deps.store, config.env),
    clock: deps.clock,
    clients: config.clients,
    throttle: guard.throttle,
    onLoginEvent: (e) => {
      prometheus?.metrics.login(e);
      config.log(loginEventLine(e));
    },
  });
  // strict: false: a trailing slash is accepted everywhere, as the sync client uses `/dictionaries/`.
  const app = new Hono<AppEnv>({ strict: false });

  app.use(requestId());
  app.use(requestLog(config.requestLog ?? ((e) => config.log(requestLine(e)))));
  if (prometheus) app.use(httpMetrics(prometheus.metrics));
  app.use(
    secureHeaders({
      // A JSON API never needs to run scripts or be framed; a strict policy costs nothing.
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], sandbox: [] },
      referrerPolicy: 'no-referrer',
    }),
  );
  app.use('/scheduler/*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use('/api/*', async (c, next) => {
    await next();
    // Replies carry survey data and tokens: no shared cache may keep them.
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });

  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        c.header('Allow', methods.join(', '));
        return errorResponse(c, new AppError('API-001', `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`));
      },
    }),
  );

  app.onError((err, c) => errorResponse(c, err, config.log));
  app.notFound((c) => errorResponse(c, noRoute(c.req.method, c.req.path)));

  const api = new ApiBuilder(app, tokens, deps.store, { store: deps.store, trustedProxies: () => config.trustedProxies ?? [] });
  // One budget for every upload this app serves (docs/limits.md#memory-of-uploads-in-flight).
  const uploadMemory = new MemoryBudget(limits.uploadMemoryBytes);
  const routeDeps: RouteDeps = {
    store: deps.store,
    tokens,
    config,
    clock: deps.clock ?? Date.now,
    prometheus,
    health,
    uploadMemory,
    checker: deps.checker ?? INLINE_CHECKER,
  };
  for (const group of GROUPS) group(api, routeDeps);
  return app;
}

/**
 * A path no route takes. Under `/api` it is said in CSWeb's words, `fatal_error` and
 * `No route found for "GET /api/…"`, which a CSPro client reads as "this server does not offer
 * that operation" rather than as an error (docs/sync.md#errors).
 */
function noRoute(method: string, path: string): AppError {
  if (path === '/api' || path.startsWith('/api/')) {
    return new AppError('API-002', `No route found for "${method} ${path}"`, { csweb_code: 'fatal_error' });
  }
  return new AppError('API-002', `no route ${path}`);
}

/** Shortest SDS_METRICS_TOKEN accepted: a static secret on the network must not be guessable. */
const MIN_METRICS_TOKEN = 16;

/** The metrics token in force (docs/metrics.md#access); undefined when unset or empty. */
function metricsToken(config: HttpConfig): string | undefined {
  const token = config.metricsToken ?? config.env.SDS_METRICS_TOKEN;
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_METRICS_TOKEN || /\s/.test(token)) {
    throw new AppError(
      'CONFIG_INVALID',
      `SDS_METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN} characters without spaces; it has ${token.length}`,
      { field: 'SDS_METRICS_TOKEN' },
    );
  }
  return token;
}
