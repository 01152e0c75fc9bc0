import type { Store } from '../store/open-store.js';
import type { WebhookRow } from '../store/webhooks-repo.js';
import { deliveryHeaders } from './dispatch.js';
import { envelope, isoMicros } from './envelope.js';
import { TEST_EVENT } from './event-kinds.js';
import { createSender, type SendResult } from './send.js';
import type { DeliverySettings } from './settings.js';
import { newMessageId } from './signing.js';

export interface TestOutcome {
  payload: { event: typeof TEST_EVENT; timestamp: string; data: { message: string } };
  result: SendResult;
}

/**
 * Sends one `webhook_test` event to a webhook now, signed like every delivery, waiting at most
 * `testTimeoutMs` in all. Never queued or retried, but recorded in the delivery history like any
 * attempt.
 */
export async function sendTestMessage(
  store: Store,
  w: WebhookRow,
  opts: { now: () => number; settings: DeliverySettings; message: string },
): Promise<TestOutcome> {
  const { settings } = opts;
  const startedMs = opts.now();
  const us = await store.webhooks.reserveEventUs(w.id, startedMs * 1000);
  const data = { message: opts.message };
  const timestamp = isoMicros(us);
  const body = envelope(TEST_EVENT, timestamp, w.id, data);
  const messageId = newMessageId();
  const connectMs = Math.min(settings.connectTimeoutMs, settings.testTimeoutMs);
  const sender = createSender({ connectMs, responseMs: settings.testTimeoutMs });
  let result: SendResult;
  try {
    result = await sender.post(w.url, body, deliveryHeaders(w.secret, messageId, body, startedMs), {
      totalTimeoutMs: settings.testTimeoutMs,
    });
  } finally {
    await sender.close();
  }
  const ok = result.outcome === 'ok';
  await store.transaction(async (tx) => {
    const deliveryId = await tx.webhookQueue.addDelivery({
      webhookId: w.id,
      event: TEST_EVENT,
      messageId,
      body,
      state: ok ? 'success' : 'failed',
      nextAttemptMs: null,
      createdAt: new Date(startedMs).toISOString(),
    });
    await tx.webhookQueue.addAttempt({
      deliveryId,
      webhookId: w.id,
      event: TEST_EVENT,
      status: ok ? 'success' : 'failed',
      responseStatus: result.status,
      responseMs: result.ms,
      error: result.error,
      retryCount: 0,
      redelivery: 0,
      attemptedAt: new Date(startedMs).toISOString(),
    });
  });
  return { payload: { event: TEST_EVENT, timestamp, data }, result };
}
