// The metrics that /metrics reads from the store at each scrape (docs/metrics.md): durable job and
// webhook counters kept by the store's triggers, the webhook queue depth and per-schedule gauges,
// over a real server on loopback and a real store. Counters must not go backwards when old rows
// are pruned (log retention deletes them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addSchedule } from '../../../src/core/scheduler/index.js';
import { addWebhook } from '../../../src/core/webhooks/index.js';
import { join } from 'node:path';
import { setTargetConfig } from '../../helpers/breakout-helpers.js';
import { seedPopstan } from '../../helpers/http-server.js';
import { storeSql, tempStore } from '../../helpers/temp-home.js';
import { startServer } from '../../../src/http/serve.js';
import type { Store } from '../../../src/store/open-store.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const NOW = Date.UTC(2025, 0, 15, 9, 0, 0);

async function scrape(base: string): Promise<string> {
  const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200);
  return r.text();
}

/** The value of one sample line, `name{labels} value`, exactly as written. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function finishJob(store: Store, dict: string, id: string, status: 'completed' | 'failed', cases: number): Promise<void> {
  await store.jobs.create({ id, dictionaries: [dict], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  await store.jobs.markRunning(id, process.pid);
  await store.jobs.finish(
    id,
    status,
    status === 'completed'
      ? { result: { dictionaries_processed: [dict], total_cases: cases, tables_created: [], warnings: 0 } }
      : { error: { code: 'DB-001', message: 'down', details: '' } },
  );
}

test('job, webhook, queue and schedule figures come from the store, and pruning old rows never lowers a counter', async () => {
  const t = await tempStore();
  const store = t.store;
  const dict = await seedPopstan(store);
  await setTargetConfig(store, dict, { type: 'sqlite', file: join(store.home.targets, 'popstan.sqlite') });
  // No webhook dispatcher: it would send the due delivery and change the figures under test.
  const server = await startServer({
    store,
    port: 0,
    webhookDispatcher: false,
    clock: () => NOW,
    config: { metricsToken: TOKEN, env: {}, log: () => {} },
  });
  const base = server.url;
  try {
    await finishJob(store, dict, 'job-1', 'completed', 40);
    await finishJob(store, dict, 'job-2', 'failed', 0);
    const hook = await addWebhook(store, { name: 'h', url: 'http://127.0.0.1:9/hook', events: ['case_uploaded'] });
    const delivery = (state: 'pending' | 'failed', next: number | null, n: number) =>
      store.webhookQueue.addDelivery({
        webhookId: hook.id,
        event: 'case_uploaded',
        messageId: `msg_${n}`,
        body: '{}',
        state,
        nextAttemptMs: next,
        createdAt: new Date(NOW).toISOString(),
      });
    const due = await delivery('pending', NOW - 1000, 1);
    await delivery('pending', NOW + 60_000, 2);
    await delivery('failed', null, 3);
    for (const status of ['success', 'success', 'failed'] as const) {
      await store.webhookQueue.addAttempt({
        deliveryId: due,
        webhookId: hook.id,
        event: 'case_uploaded',
        status,
        responseStatus: status === 'success' ? 200 : 500,
        responseMs: 5,
        error: null,
        retryCount: 0,
        redelivery: 0,
        attemptedAt: new Date(NOW).toISOString(),
      });
    }
    const schedule = await addSchedule(store, { dictionary: dict, enabled: true }, { zone: 'UTC', now: () => new Date(NOW) });
    await store.schedules.markStarted(
      schedule.id,
      { lastRun: '2025-01-15T02:00:00.000Z', nextRun: null, logFile: null },
      '2025-01-15T02:00:00.000Z',
    );
    await store.schedules.markEnded(schedule.id, 5, '2025-01-15T02:01:00.000Z');

    const text = await scrape(base);
    assert.equal(sample(text, 'sds_breakout_jobs_total{outcome="completed"}'), 1);
    assert.equal(sample(text, 'sds_breakout_jobs_total{outcome="failed"}'), 1);
    assert.equal(sample(text, 'sds_breakout_cases_processed_total'), 40);
    assert.equal(sample(text, 'sds_webhook_delivery_attempts_total{outcome="success"}'), 2);
    assert.equal(sample(text, 'sds_webhook_delivery_attempts_total{outcome="failed"}'), 1);
    assert.equal(sample(text, 'sds_webhook_queue_deliveries{state="due"}'), 1);
    assert.equal(sample(text, 'sds_webhook_queue_deliveries{state="waiting"}'), 1);
    assert.equal(sample(text, 'sds_webhook_queue_deliveries{state="failed"}'), 1);
    assert.equal(sample(text, `sds_schedule_last_run_timestamp_seconds{dictionary="${dict}"}`), Date.UTC(2025, 0, 15, 2) / 1000);
    assert.equal(sample(text, `sds_schedule_last_exit_code{dictionary="${dict}"}`), 5);

    // Retention deletes old rows; the counters stay, and the next job adds to them.
    await storeSql(store, 'DELETE FROM webhook_attempts');
    await storeSql(store, 'DELETE FROM jobs');
    await finishJob(store, dict, 'job-3', 'completed', 2);
    const later = await scrape(base);
    assert.equal(sample(later, 'sds_breakout_jobs_total{outcome="completed"}'), 2);
    assert.equal(sample(later, 'sds_breakout_jobs_total{outcome="failed"}'), 1);
    assert.equal(sample(later, 'sds_breakout_cases_processed_total'), 42);
    assert.equal(sample(later, 'sds_webhook_delivery_attempts_total{outcome="success"}'), 2);

    // A deleted schedule leaves the output instead of keeping its last value.
    await store.schedules.remove(schedule.id);
    assert.equal(sample(await scrape(base), `sds_schedule_last_exit_code{dictionary="${dict}"}`), undefined);
  } finally {
    await server.close();
    await t.cleanup();
  }
});
