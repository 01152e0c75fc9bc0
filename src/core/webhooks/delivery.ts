import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { deliverDue, type DeliverReport } from '../../webhooks/dispatch.js';
import { deliverySettings, type DeliverySettings } from '../../webhooks/settings.js';
import { sendTestMessage } from '../../webhooks/test-message.js';
import { requireWebhook } from './webhooks.js';

export type { DeliverReport } from '../../webhooks/dispatch.js';
export type { DeliverySettings } from '../../webhooks/settings.js';
export { DELIVERY_ENV } from '../../webhooks/settings.js';

/** Delivery limits: `explicit` values, else the SDS_WEBHOOK_* environment variables, else the defaults. */
export function webhookSettings(env: NodeJS.ProcessEnv = process.env, explicit: Partial<DeliverySettings> = {}): DeliverySettings {
  return deliverySettings(env, explicit);
}

export interface DeliverOptions {
  /** Clock of every decision (due, lease, retry times), epoch ms; default Date.now. */
  now?: () => number;
  settings?: DeliverySettings;
}

/**
 * Delivers what is due now: the events of changes since the last call, then every delivery whose
 * first attempt or retry is due, and returns what it did. The one entry point of every sender:
 * the dispatcher of `sds serve`, `sds webhooks deliver`, and the per-minute scheduler run. Safe
 * to call from several processes at once (deliveries are claimed with a lease).
 */
export function deliverDueWebhooks(store: Store, opts: DeliverOptions = {}): Promise<DeliverReport> {
  return deliverDue(store, { now: opts.now ?? Date.now, settings: opts.settings ?? webhookSettings() });
}

export interface WebhookDispatcher {
  /** Stops polling and waits for the pass in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs `deliverDueWebhooks` every `settings.pollMs` until stopped: the dispatcher inside
 * `sds serve`. A failing pass (a busy store, say) is logged and the next one tries again.
 */
export function startWebhookDispatcher(store: Store, opts: DeliverOptions & { log?: (line: string) => void } = {}): WebhookDispatcher {
  const settings = opts.settings ?? webhookSettings();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = () => {
    pass = deliverDueWebhooks(store, { now: opts.now, settings })
      .then(
        () => undefined,
        (err: unknown) => opts.log?.(`sds: webhook delivery pass failed: ${(err as Error).message}`),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, settings.pollMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}

/** Reply of a test that reached the receiver and got a 2xx answer (docs/webhooks.md#managing-webhooks). */
export interface WebhookTestSuccess {
  status: 'success';
  webhook_id: number;
  test_payload_sent: { event: 'webhook_test'; timestamp: string; data: { message: string } };
  response_status: number;
  response_time: string;
}

/** Reply of a failed test (docs/webhooks.md#managing-webhooks, HTTP 502): `error` is the stable code, `details` what happened. */
export interface WebhookTestFailure {
  status: 'failed';
  webhook_id: number;
  error: 'WHK-002' | 'WEBHOOK_UNREACHABLE' | 'WEBHOOK_REJECTED';
  details: string;
  response_status?: number;
  response_time: string;
}

/**
 * Sends a `webhook_test` event to a webhook (active or not) and waits for the answer, at most
 * `testTimeoutMs` (30 s by default, the spec's limit). A 2xx answer is success; anything else
 * fails with WHK-002 (no answer in time), WEBHOOK_UNREACHABLE (no connection) or
 * WEBHOOK_REJECTED (another status). The attempt is recorded in the delivery history.
 */
export async function testWebhook(store: Store, id: number, opts: DeliverOptions = {}): Promise<WebhookTestSuccess | WebhookTestFailure> {
  const w = await requireWebhook(store, id);
  const { payload, result } = await sendTestMessage(store, w, {
    now: opts.now ?? Date.now,
    settings: opts.settings ?? webhookSettings(),
    message: `Test event from sds for webhook ${w.id} (${w.name})`,
  });
  const time = `${result.ms}ms`;
  if (result.outcome === 'ok') {
    return { status: 'success', webhook_id: w.id, test_payload_sent: payload, response_status: result.status!, response_time: time };
  }
  const error = result.outcome === 'timeout' ? 'WHK-002' : result.outcome === 'unreachable' ? 'WEBHOOK_UNREACHABLE' : 'WEBHOOK_REJECTED';
  return {
    status: 'failed',
    webhook_id: w.id,
    error,
    details: result.error ?? error,
    ...(result.status === null ? {} : { response_status: result.status }),
    response_time: time,
  };
}

/** One attempt of the delivery history (docs/webhooks.md#managing-webhooks). */
interface DeliveryRecord {
  /** The attempt's id. */
  id: number;
  /** The delivery (event) it was an attempt of: the id that redelivery takes. */
  delivery_id: number;
  event: string;
  status: 'success' | 'failed';
  /** Null when no HTTP answer came back (timeout, no connection): the field is always there (docs/webhooks.md). */
  response_status: number | null;
  response_time: string;
  error?: string;
  attempted_at: string;
  /** On failed attempts: 0 for the first attempt, 1 to 3 for the retries (counted again from 0 after a redelivery). */
  retry_count?: number;
  /** On attempts made after an operator redelivered the delivery: the n of its n-th redelivery. */
  redelivery?: number;
}

export interface DeliveryHistory {
  webhook_id: number;
  total_deliveries: number;
  successful: number;
  failed: number;
  deliveries: DeliveryRecord[];
}

const DEFAULT_DELIVERIES_LIMIT = 50;
export const MAX_DELIVERIES_LIMIT = 1000;

/** Checks the `limit` of the delivery history (default 50, 1 to 1000). */
export function parseDeliveriesLimit(v: unknown): number {
  if (v === undefined || v === '') return DEFAULT_DELIVERIES_LIMIT;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_DELIVERIES_LIMIT) {
    throw new AppError('USAGE', `limit must be a whole number from 1 to ${MAX_DELIVERIES_LIMIT}, got "${String(v)}"`, { field: 'limit' });
  }
  return n;
}

/**
 * The delivery history of a webhook: its newest `limit` attempts, newest first, and counts over
 * all its attempts (each attempt, retries included, is one record).
 */
export async function webhookDeliveries(store: Store, id: number, limit = DEFAULT_DELIVERIES_LIMIT): Promise<DeliveryHistory> {
  const [counts, attempts] = await store.readTransaction(async (tx) => {
    await requireWebhook(tx, id);
    return [await tx.webhookQueue.attemptCounts(id), await tx.webhookQueue.attempts(id, limit)] as const;
  });
  const deliveries = attempts.map((a): DeliveryRecord => ({
    id: a.id,
    delivery_id: a.deliveryId,
    event: a.event,
    status: a.status,
    response_status: a.responseStatus,
    response_time: `${a.responseMs}ms`,
    ...(a.error === null ? {} : { error: a.error }),
    attempted_at: a.attemptedAt,
    ...(a.status === 'failed' ? { retry_count: a.retryCount } : {}),
    ...(a.redelivery > 0 ? { redelivery: a.redelivery } : {}),
  }));
  return { webhook_id: id, total_deliveries: counts.total, successful: counts.successful, failed: counts.failed, deliveries };
}
