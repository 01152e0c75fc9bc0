import type { Store } from '../../store/open-store.js';
import type { DeliveryViewRow } from '../../store/webhook-queue-repo.js';
import { AppError } from '../../shared/errors.js';
import { deliverDueWebhooks, webhookSettings, type DeliverOptions, type DeliverReport } from './delivery.js';
import { requireWebhook } from './webhooks.js';

/**
 * A delivery (one event for one webhook) as an operator sees it. `id` is the delivery id that
 * `sds webhooks redeliver --delivery N` and `POST …/deliveries/{delivery_id}/redeliver` take;
 * `message_id` is the `webhook-id` header it is sent with, the same on every attempt and every
 * redelivery (docs/webhooks.md, "Failed deliveries and redelivery").
 */
export interface DeliveryState {
  id: number;
  event: string;
  message_id: string;
  status: 'pending' | 'success' | 'failed';
  /** Attempts recorded for it, over the original round and every redelivery. */
  attempts: number;
  /** Times an operator re-queued it after it failed. */
  redeliveries: number;
  created_at: string;
  /** When it is due, while pending. */
  next_attempt_at?: string;
  last_attempted_at?: string;
  /** Null when the last attempt got no HTTP answer (or none was made yet), as in the attempt records. */
  last_response_status: number | null;
  last_error?: string;
}

/** A failed delivery with the event it carries: the exact body, parsed. */
interface FailedDelivery extends DeliveryState {
  status: 'failed';
  payload: unknown;
}

export interface FailedDeliveries {
  webhook_id: number;
  /** Failed deliveries of the webhook in all; `limit` bounds only the list. */
  failed: number;
  /** The oldest failed deliveries first. */
  deliveries: FailedDelivery[];
}

function toState(r: DeliveryViewRow): DeliveryState {
  return {
    id: r.id,
    event: r.event,
    message_id: r.messageId,
    status: r.state,
    attempts: r.totalAttempts,
    redeliveries: r.redeliveries,
    created_at: r.createdAt,
    ...(r.state === 'pending' && r.nextAttemptMs !== null ? { next_attempt_at: new Date(r.nextAttemptMs).toISOString() } : {}),
    ...(r.lastAttemptedAt === null ? {} : { last_attempted_at: r.lastAttemptedAt }),
    last_response_status: r.lastResponseStatus,
    ...(r.lastError === null ? {} : { last_error: r.lastError }),
  };
}

/** Checks a delivery id given as text or number (path segments, CLI options). */
export function parseDeliveryId(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new AppError('USAGE', `a delivery id is a whole number ≥ 1, got "${String(v)}"`, { field: 'delivery_id' });
  return n;
}

/**
 * The deliveries of a webhook that used all their attempts and were not sent: oldest first, at
 * most `limit`, each with its payload and last error. Nothing removes them but a redelivery
 * (which puts them back in the queue) or deleting the webhook.
 */
export async function failedWebhookDeliveries(store: Store, id: number, limit: number): Promise<FailedDeliveries> {
  const [failed, rows] = await store.readTransaction(async (tx) => {
    await requireWebhook(tx, id);
    return [await tx.webhookQueue.countFailed(id), await tx.webhookQueue.failedDeliveries(id, limit)] as const;
  });
  return {
    webhook_id: id,
    failed,
    deliveries: rows.map((r) => ({ ...toState(r), status: 'failed' as const, payload: JSON.parse(r.body) as unknown })),
  };
}

/**
 * Puts one failed delivery back in the queue, due now, with a fresh set of attempts (and
 * retries). It keeps its id, body and `webhook-id`, so receivers can deduplicate it; the
 * dispatcher (of `sds serve`, `sds webhooks deliver` or the scheduler) sends it. NOT_FOUND for an
 * unknown webhook or a delivery that is not one of its own; CONFLICT for a delivery that is not
 * failed (still pending, or delivered).
 */
export async function redeliverWebhookDelivery(
  store: Store,
  webhookId: number,
  deliveryId: number,
  opts: { now?: () => number } = {},
): Promise<DeliveryState> {
  return store.transaction(async (tx) => {
    await requireWebhook(tx, webhookId);
    const r = await tx.webhookQueue.redeliver(webhookId, deliveryId, (opts.now ?? Date.now)());
    if (r.kind === 'missing')
      throw new AppError('NOT_FOUND', `webhook ${webhookId} has no delivery ${deliveryId}`, { webhook: webhookId, delivery: deliveryId });
    if (r.kind === 'not-failed') {
      const why = r.state === 'pending' ? 'it is still queued (waiting for its next attempt or being sent)' : 'it was delivered';
      throw new AppError(
        'CONFLICT',
        `delivery ${deliveryId} of webhook ${webhookId} is not failed: ${why}; only failed deliveries are redelivered`,
        {
          webhook: webhookId,
          delivery: deliveryId,
          status: r.state,
        },
      );
    }
    return toState((await tx.webhookQueue.deliveryViews(webhookId, [deliveryId]))[0]!);
  });
}

export interface RedeliveredAll {
  webhook_id: number;
  redelivered: number;
  delivery_ids: number[];
}

/** Puts every failed delivery of a webhook back in the queue (see `redeliverWebhookDelivery`); none failed is not an error. */
export async function redeliverFailedWebhookDeliveries(
  store: Store,
  webhookId: number,
  opts: { now?: () => number } = {},
): Promise<RedeliveredAll> {
  const ids = await store.transaction(async (tx) => {
    await requireWebhook(tx, webhookId);
    return tx.webhookQueue.redeliverAllFailed(webhookId, (opts.now ?? Date.now)());
  });
  return { webhook_id: webhookId, redelivered: ids.length, delivery_ids: ids };
}

export interface RedeliverRun {
  webhook_id: number;
  redelivered: number;
  /** False with `queueOnly`: the deliveries wait for the next dispatcher pass. */
  sent: boolean;
  /** What the delivery pass did (every due delivery, not only these), when one ran. */
  pass?: DeliverReport;
  /** The redelivered deliveries after the pass: `success`, or `pending` with their next retry. */
  deliveries: DeliveryState[];
  /** Whether the webhook is active: the queue of an inactive one waits. */
  active: boolean;
}

/**
 * What `sds webhooks redeliver` does: re-queues one failed delivery (`delivery`) or all of them
 * (`allFailed`), then, unless `queueOnly`, runs one delivery pass (`deliverDueWebhooks`, the
 * normal dispatcher with its leases) and reports where each redelivered delivery stands.
 */
export async function redeliverAndSend(
  store: Store,
  webhookId: number,
  target: { delivery: number } | { allFailed: true },
  opts: DeliverOptions & { queueOnly?: boolean } = {},
): Promise<RedeliverRun> {
  const now = opts.now ?? Date.now;
  const ids =
    'delivery' in target
      ? [(await redeliverWebhookDelivery(store, webhookId, target.delivery, { now })).id]
      : (await redeliverFailedWebhookDeliveries(store, webhookId, { now })).delivery_ids;
  const active = (await requireWebhook(store, webhookId)).active;
  let pass: DeliverReport | undefined;
  if (!opts.queueOnly && ids.length > 0 && active)
    pass = await deliverDueWebhooks(store, { now, settings: opts.settings ?? webhookSettings() });
  return {
    webhook_id: webhookId,
    redelivered: ids.length,
    sent: pass !== undefined,
    ...(pass ? { pass } : {}),
    deliveries: (await store.webhookQueue.deliveryViews(webhookId, ids)).map(toState),
    active,
  };
}
