import { AppError } from '../shared/errors.js';

/** Limits of delivery, every one configurable so tests run in milliseconds. */
export interface DeliverySettings {
  /** Time to open the connection (TCP and TLS). */
  connectTimeoutMs: number;
  /** Time for the receiver to answer once connected (the spec advises receivers to answer in 5 s). */
  responseTimeoutMs: number;
  /** Whole time the test operation waits before answering 502 (docs/webhooks.md#managing-webhooks: 30 s). */
  testTimeoutMs: number;
  /** How long a claimed delivery stays with its dispatcher; must exceed connect + response time. */
  leaseMs: number;
  /** Waits after the 1st, 2nd and 3rd failed attempt (spec: 1, 5 and 15 minutes). */
  retryDelaysMs: number[];
  /** Deliveries one dispatcher sends at the same time. */
  concurrency: number;
  /** How often the dispatcher of `sds serve` looks for due deliveries. */
  pollMs: number;
}

const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  connectTimeoutMs: 5_000,
  responseTimeoutMs: 10_000,
  testTimeoutMs: 30_000,
  leaseMs: 60_000,
  retryDelaysMs: [60_000, 300_000, 900_000],
  concurrency: 4,
  pollMs: 1_000,
};

/** Environment variables that override each default. */
export const DELIVERY_ENV = {
  connectTimeoutMs: 'SDS_WEBHOOK_CONNECT_TIMEOUT_MS',
  responseTimeoutMs: 'SDS_WEBHOOK_RESPONSE_TIMEOUT_MS',
  testTimeoutMs: 'SDS_WEBHOOK_TEST_TIMEOUT_MS',
  leaseMs: 'SDS_WEBHOOK_LEASE_MS',
  retryDelaysMs: 'SDS_WEBHOOK_RETRY_DELAYS_MS',
  concurrency: 'SDS_WEBHOOK_CONCURRENCY',
  pollMs: 'SDS_WEBHOOK_POLL_MS',
} as const satisfies Record<keyof DeliverySettings, string>;

function positive(name: string, raw: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new AppError('CONFIG_INVALID', `${name} must be a whole number ≥ 1, got "${raw}"`, { field: name });
  return n;
}

/**
 * Delivery settings: explicit values, else the environment (DELIVERY_ENV), else the defaults.
 * A lease no longer than one attempt could expire while its dispatcher still waits for the
 * receiver, and a second dispatcher would send the same attempt again: refused.
 */
export function deliverySettings(env: NodeJS.ProcessEnv = {}, explicit: Partial<DeliverySettings> = {}): DeliverySettings {
  const s: DeliverySettings = { ...DEFAULT_DELIVERY_SETTINGS };
  for (const key of Object.keys(DELIVERY_ENV) as (keyof DeliverySettings)[]) {
    const raw = env[DELIVERY_ENV[key]];
    if (raw === undefined || raw === '') continue;
    if (key === 'retryDelaysMs') {
      const parts = raw.split(',').map((p) => positive(DELIVERY_ENV[key], p));
      if (parts.length !== 3)
        throw new AppError('CONFIG_INVALID', `${DELIVERY_ENV[key]} must list 3 waits in ms, e.g. 60000,300000,900000; got "${raw}"`, {
          field: DELIVERY_ENV[key],
        });
      s.retryDelaysMs = parts;
    } else {
      s[key] = positive(DELIVERY_ENV[key], raw);
    }
  }
  Object.assign(s, Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined)));
  if (s.leaseMs <= s.connectTimeoutMs + s.responseTimeoutMs) {
    throw new AppError(
      'CONFIG_INVALID',
      `the webhook lease (${s.leaseMs} ms) must be longer than the connect and response timeouts together (${s.connectTimeoutMs + s.responseTimeoutMs} ms)`,
      { field: DELIVERY_ENV.leaseMs },
    );
  }
  return s;
}

/** When the attempt after `failedAttempts` failures is due, or null when the retries are used up. */
export function nextRetryAt(failedAttempts: number, failedAtMs: number, delays: number[]): number | null {
  const wait = delays[failedAttempts - 1];
  return wait === undefined ? null : failedAtMs + wait;
}
