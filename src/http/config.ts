import { DEFAULT_CLIENTS } from '../core/auth/clients.js';

/** Settings of the HTTP app; every field has a default. */
export interface HttpConfig {
  /** Largest accepted dictionary upload, in bytes (default 10 MB); more is 413. */
  maxUploadBytes: number;
  /** Largest accepted form or JSON body, in bytes (default 64 KB); more is 413. */
  maxBodyBytes: number;
  /** OAuth clients accepted by POST /api/token, client_id → secret. */
  clients: Readonly<Record<string, string>>;
  /** Receives one line per request (default: stderr). */
  log: (line: string) => void;
  /**
   * Where SDS_JWT_SECRET, the webhook tokens (BREAKOUT_WEBHOOK_TOKEN, SURVEY_WEBHOOK_TOKEN) and
   * target passwords are read from (default: process.env).
   */
  env: NodeJS.ProcessEnv;
  /** Rate limit of the root webhook scripts per (token, client address); default 60 per sliding 60 s (spec 8). */
  webhookRateLimit: { max: number; windowMs: number };
  /** Connect timeout of each target read by the status webhook (default SDS_STATUS_CONNECT_TIMEOUT_MS, else 3000). */
  statusConnectTimeoutMs: number;
}

export const MB = 1024 * 1024;

/** Fills in the defaults of the HTTP settings. */
export function httpConfig(partial: Partial<HttpConfig> = {}): HttpConfig {
  return {
    maxUploadBytes: partial.maxUploadBytes ?? 10 * MB,
    maxBodyBytes: partial.maxBodyBytes ?? 64 * 1024,
    clients: partial.clients ?? DEFAULT_CLIENTS,
    log: partial.log ?? ((line) => process.stderr.write(line + '\n')),
    env: partial.env ?? process.env,
    webhookRateLimit: partial.webhookRateLimit ?? { max: 60, windowMs: 60_000 },
    statusConnectTimeoutMs: partial.statusConnectTimeoutMs ?? positiveMs(process.env.SDS_STATUS_CONNECT_TIMEOUT_MS) ?? 3000,
  };
}

function positiveMs(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}
