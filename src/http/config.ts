import { DEFAULT_CLIENTS, loadLoginGuardSettings, type LoginThrottlePolicy } from '../core/auth/index.js';
import { statusConnectTimeout } from '../core/breakout/index.js';
import type { DeliverySettings } from '../core/webhooks/index.js';
import type { FsSpace } from '../core/health/index.js';
import type { HomePaths } from '../shared/home.js';
import { escapeLogText } from '../shared/log-escape.js';
import { checkUploadMemory, loadLimits, type Limits } from '../core/home/index.js';
import { httpTimeouts, type HttpTimeouts } from './timeouts.js';
import type { RequestLogEntry } from './request-log.js';
import type { WorkerMetricsLink } from './worker-metrics-ipc.js';

/** Severity of a server log line (a JSON line's `level`). */
export type LogLevel = 'info' | 'warn' | 'error';

/**
 * Settings of the HTTP app; every field has a default. The slow-client timeouts (HttpTimeouts:
 * headersTimeoutMs, bodyTimeoutMs, requestTimeoutMs) default from SDS_HTTP_*_TIMEOUT_MS of `env`.
 */
export interface HttpConfig extends HttpTimeouts {
  /** Largest accepted dictionary upload, in bytes (default 10 MB); more is 413. */
  maxUploadBytes: number;
  /** Largest accepted form or JSON body, in bytes (default 64 KB); more is 413. */
  maxBodyBytes: number;
  /**
   * Largest file accepted by the file routes (`PUT /api/files/{path}/content`), in bytes
   * (default 100 MB); more is 413 as soon as the limit is crossed, the old version kept.
   */
  maxFileBytes: number;
  /**
   * Largest sync upload (`POST …/cases`), in bytes of JSON after inflating; more is 413. Absent:
   * `limits.requestBytes` (default 64 MB; docs/limits.md).
   */
  maxSyncBytes?: number;
  /**
   * Limits on what is stored and parsed (docs/limits.md). Those given here win over the home's
   * config.json `limits` and the SDS_LIMIT_* variables of `env`; createApp resolves them all.
   */
  limits?: Partial<Limits>;
  /** OAuth clients accepted by POST /api/token, client_id → secret. */
  clients: Readonly<Record<string, string>>;
  /** Receives the server's lines: errors, login events, the webhook dispatcher (default: stderr). */
  log: (line: string, level?: LogLevel) => void;
  /** Receives one entry per request (default: its text line, requestLine, to `log`); `sds serve --log-format json` sets it. */
  requestLog?: (entry: RequestLogEntry) => void;
  /**
   * Where SDS_JWT_SECRET, the webhook tokens (BREAKOUT_WEBHOOK_TOKEN, SURVEY_WEBHOOK_TOKEN) and
   * target passwords are read from (default: process.env).
   */
  env: NodeJS.ProcessEnv;
  /** Webhook delivery limits set here win over the SDS_WEBHOOK_* variables of `env`. */
  webhooks: Partial<DeliverySettings>;
  /**
   * Rate limit of the root webhook scripts per (token, client address); default 60 per sliding 60 s
   * (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts).
   */
  webhookRateLimit: { max: number; windowMs: number };
  /** Connect timeout of each target read by the status webhook (default SDS_STATUS_CONNECT_TIMEOUT_MS, else 3000). */
  statusConnectTimeoutMs: number;
  /**
   * Failed-login throttle of POST /api/token and the reverse proxies whose X-Forwarded-For is
   * believed. Absent: read from the home's config.json and `env` (see loginGuardSettings).
   */
  throttle?: LoginThrottlePolicy;
  trustedProxies?: string[];
  /**
   * The bearer token of `GET /metrics` (docs/metrics.md); absent: SDS_METRICS_TOKEN of `env`.
   * Unset or empty, the route answers 404 and no metric is collected.
   */
  metricsToken?: string;
  /**
   * In a worker of `sds serve --workers N`: the link to the other workers, so that `GET /metrics`
   * answers for all of them (docs/metrics.md#workers). Absent: the metrics of this process.
   */
  workerMetrics?: WorkerMetricsLink;
  /**
   * Readiness settings: the free-space floor (absent: SDS_READY_MIN_FREE_BYTES of `env`, else the
   * home's config.json `health.min_free_bytes`, else 1 GiB) and the free-space reader (tests).
   */
  health?: { minFreeBytes?: number; readyCacheMs?: number; statfs?: (path: string) => FsSpace };
}

export const MB = 1024 * 1024;

/** Default file-size limit of the file routes: photos, audio and paradata zips fit many times over. */
const DEFAULT_MAX_FILE_BYTES = 100 * MB;

/** Fills in the defaults of the HTTP settings. */
export function httpConfig(partial: Partial<HttpConfig> = {}): HttpConfig {
  return {
    maxUploadBytes: partial.maxUploadBytes ?? 10 * MB,
    maxBodyBytes: partial.maxBodyBytes ?? 64 * 1024,
    maxSyncBytes: partial.maxSyncBytes,
    maxFileBytes: partial.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    limits: partial.limits,
    clients: partial.clients ?? DEFAULT_CLIENTS,
    log: partial.log ?? ((line) => process.stderr.write(escapeLogText(line) + '\n')),
    requestLog: partial.requestLog,
    env: partial.env ?? process.env,
    webhooks: partial.webhooks ?? {},
    webhookRateLimit: partial.webhookRateLimit ?? { max: 60, windowMs: 60_000 },
    statusConnectTimeoutMs: partial.statusConnectTimeoutMs ?? statusConnectTimeout(undefined, partial.env ?? process.env),
    throttle: partial.throttle,
    trustedProxies: partial.trustedProxies,
    metricsToken: partial.metricsToken,
    workerMetrics: partial.workerMetrics,
    health: partial.health,
    ...httpTimeouts(partial.env ?? process.env, {
      headersTimeoutMs: partial.headersTimeoutMs,
      bodyTimeoutMs: partial.bodyTimeoutMs,
      requestTimeoutMs: partial.requestTimeoutMs,
    }),
  };
}

/** The login guard settings: those given, else the home's config.json and the environment. */
export function loginGuardOf(config: HttpConfig, home: HomePaths): { throttle: LoginThrottlePolicy; trustedProxies: string[] } {
  const loaded = config.throttle && config.trustedProxies ? undefined : loadLoginGuardSettings(home, config.env);
  return { throttle: config.throttle ?? loaded!.throttle, trustedProxies: config.trustedProxies ?? loaded!.trustedProxies };
}

/**
 * The limits the server applies (docs/limits.md): those of `config.limits`, else the SDS_LIMIT_*
 * variables of `config.env`, else the home's config.json, else the defaults; `maxSyncBytes`
 * wins for the upload size. Read once at start, so a bad value (or an upload memory budget that
 * cannot hold one upload at the size limit) stops the start.
 */
export function serverLimits(config: HttpConfig, home: HomePaths): Limits {
  const limits: Limits = { ...loadLimits(home, config.env), ...config.limits };
  if (config.maxSyncBytes !== undefined) limits.requestBytes = config.maxSyncBytes;
  checkUploadMemory(limits);
  return limits;
}
