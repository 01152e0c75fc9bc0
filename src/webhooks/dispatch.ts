import { randomBytes } from 'node:crypto';
import type { Store } from '../store/open-store.js';
import type { ClaimedDelivery } from '../store/webhook-queue-repo.js';
import { currentNode } from '../shared/node-id.js';
import { fanOut } from './fan-out.js';
import { createSender, type Sender } from './send.js';
import { nextRetryAt, type DeliverySettings } from './settings.js';
import { serviceSignature, standardHeaders } from './signing.js';

/** What one pass of the dispatcher did. */
export interface DeliverReport {
  /** Deliveries queued from changes captured since the last pass. */
  queued: number;
  /** Attempts made in this pass. */
  attempted: number;
  succeeded: number;
  /** Failed attempts that will be retried later. */
  retrying: number;
  /** Failed attempts that were the last retry: the delivery is failed, kept with its payload for redelivery. */
  gave_up: number;
  /** Deliveries still waiting (retries, or leased by another dispatcher). */
  pending: number;
  /** When the next waiting delivery is due (ISO 8601), or null. */
  next_due: string | null;
}

/** The headers of one attempt: both signature forms over the exact body bytes. */
export function deliveryHeaders(secret: string, messageId: string, body: string, nowMs: number): Record<string, string> {
  return { 'x-service-signature': serviceSignature(secret, body), ...standardHeaders(secret, messageId, Math.floor(nowMs / 1000), body) };
}

/**
 * Delivers what is due now: queues the events of captured changes, then sends every delivery
 * whose time has come, `concurrency` at a time, until none is due. Each delivery is claimed with
 * a lease in one store transaction before it is sent and released with its result, so several
 * dispatchers (a server, a cron run) can share a store without sending one attempt twice; a
 * dispatcher that dies mid-send leaves a lease that expires, and the delivery is sent again with
 * the same `webhook-id`. `now` is the clock of every decision (due, lease, retry time, history).
 */
export async function deliverDue(
  store: Store,
  opts: { now: () => number; settings: DeliverySettings; sender?: Sender },
): Promise<DeliverReport> {
  const { now, settings } = opts;
  const report: DeliverReport = { queued: 0, attempted: 0, succeeded: 0, retrying: 0, gave_up: 0, pending: 0, next_due: null };
  report.queued = await fanOut(store, now());
  const sender = opts.sender ?? createSender({ connectMs: settings.connectTimeoutMs, responseMs: settings.responseTimeoutMs });
  try {
    const worker = async () => {
      for (;;) {
        const t = now();
        if (!(await store.webhookQueue.hasDue(t))) return;
        // The claim is one transaction of the queue (its read and lease together), so two workers never claim one delivery.
        const claimed = await store.webhookQueue.claim(t, t + settings.leaseMs, randomBytes(12).toString('hex'), currentNode().id);
        if (!claimed) return;
        await attempt(store, claimed, sender, now, settings, report);
      }
    };
    await Promise.all(Array.from({ length: settings.concurrency }, worker));
  } finally {
    if (!opts.sender) await sender.close();
  }
  const p = await store.webhookQueue.pending();
  report.pending = p.count;
  report.next_due = p.nextDueMs === null ? null : new Date(p.nextDueMs).toISOString();
  return report;
}

async function attempt(
  store: Store,
  d: ClaimedDelivery,
  sender: Sender,
  now: () => number,
  settings: DeliverySettings,
  report: DeliverReport,
): Promise<void> {
  const startedMs = now();
  const result = await sender.post(d.url, d.body, deliveryHeaders(d.secret, d.messageId, d.body, startedMs));
  const ok = result.outcome === 'ok';
  const failedAttempts = d.attempts + 1;
  const retryAt = ok ? null : nextRetryAt(failedAttempts, now(), settings.retryDelaysMs);
  const state = ok ? 'success' : retryAt === null ? 'failed' : 'pending';
  const recorded = await store.webhookQueue.complete(
    d.leaseToken,
    {
      deliveryId: d.id,
      webhookId: d.webhookId,
      event: d.event,
      status: ok ? 'success' : 'failed',
      responseStatus: result.status,
      responseMs: result.ms,
      error: result.error,
      retryCount: d.attempts,
      redelivery: d.redeliveries,
      attemptedAt: new Date(startedMs).toISOString(),
    },
    { state, nextAttemptMs: retryAt },
  );
  report.attempted += 1;
  if (!recorded) return;
  if (ok) report.succeeded += 1;
  else if (retryAt === null) report.gave_up += 1;
  else report.retrying += 1;
}
