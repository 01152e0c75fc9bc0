// The primary's side of a /metrics scrape over several workers (src/http/worker-metrics-ipc.ts):
// who is asked, when the answer goes back, and what a late or ended worker changes. The workers
// are stand-ins that record what the primary sends them; the broker's wait runs on timers the
// test fires itself, so the time limit is checked exactly and without sleeping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { MetricsBroker } from '../../../src/http/worker-metrics-ipc.js';
import type { MetricsJson } from '../../../src/http/prometheus.js';
import type { Timers } from '../../../src/shared/timers.js';

interface StandIn {
  sent: unknown[];
  connected: boolean;
}

function worker(): Worker & StandIn {
  const w = { sent: [] as unknown[], connected: true, send: (m: unknown) => void w.sent.push(m), isConnected: () => w.connected };
  return w as unknown as Worker & StandIn;
}

/** Timers that fire only when the test says; `pending` are those set and neither fired nor cleared. */
function manualTimers(): Timers & { pending: Map<number, { fn: () => void; ms: number }>; fire(): void } {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  return {
    pending,
    set: (fn, ms) => {
      pending.set(++next, { fn, ms });
      return next;
    },
    clear: (h) => void pending.delete(h as number),
    fire() {
      const all = [...pending];
      pending.clear();
      for (const [, t] of all) t.fn();
    },
  };
}

const share = (name: string): MetricsJson =>
  [{ name, help: name, type: 'counter', values: [{ value: 1, labels: {} }], aggregator: 'sum' }] as unknown as MetricsJson;

function setUp(count: number) {
  const workers = Array.from({ length: count }, worker);
  const timers = manualTimers();
  const broker = new MetricsBroker({ peers: () => workers, count, timeoutMs: 250, timers });
  return { workers, timers, broker };
}

test('a scrape asks every other listening worker and answers once all have sent their share', () => {
  const { workers, timers, broker } = setUp(3);
  const [a, b, c] = workers as [Worker & StandIn, Worker & StandIn, Worker & StandIn];
  assert.equal(broker.handle(a, { sds: 'metrics-gather', id: 7 }), true);
  assert.deepEqual(a.sent, [], 'the asking worker is not asked for its own share');
  assert.deepEqual(b.sent, [{ sds: 'metrics-ask', ask: 0 }]);
  assert.deepEqual(c.sent, [{ sds: 'metrics-ask', ask: 0 }]);
  assert.deepEqual(
    [...timers.pending.values()].map((t) => t.ms),
    [250],
    'the wait is workers.metrics_timeout_ms',
  );

  broker.handle(b, { sds: 'metrics-share', ask: 0, metrics: share('b') });
  assert.deepEqual(a.sent, [], 'no answer while a worker has yet to send');
  broker.handle(c, { sds: 'metrics-share', ask: 0, metrics: share('c') });
  assert.deepEqual(a.sent, [{ sds: 'metrics-gathered', id: 7, shares: [share('b'), share('c')], workers: 3 }]);
  assert.equal(timers.pending.size, 0, 'the time limit is cancelled once all have answered');
});

test('a worker that has not answered when the time limit ends is left out; its late share is dropped', () => {
  const { workers, timers, broker } = setUp(3);
  const [a, b, c] = workers as [Worker & StandIn, Worker & StandIn, Worker & StandIn];
  broker.handle(a, { sds: 'metrics-gather', id: 1 });
  broker.handle(b, { sds: 'metrics-share', ask: 0, metrics: share('b') });
  timers.fire();
  assert.deepEqual(a.sent, [{ sds: 'metrics-gathered', id: 1, shares: [share('b')], workers: 3 }]);
  broker.handle(c, { sds: 'metrics-share', ask: 0, metrics: share('c') });
  assert.equal(a.sent.length, 1, 'a share after the answer changes nothing');
});

test('a worker that ends is not waited for, and a scrape it asked for is dropped', () => {
  const { workers, timers, broker } = setUp(3);
  const [a, b, c] = workers as [Worker & StandIn, Worker & StandIn, Worker & StandIn];
  broker.handle(a, { sds: 'metrics-gather', id: 1 });
  broker.handle(b, { sds: 'metrics-share', ask: 0, metrics: share('b') });
  broker.gone(c);
  assert.deepEqual(a.sent, [{ sds: 'metrics-gathered', id: 1, shares: [share('b')], workers: 3 }]);
  assert.equal(timers.pending.size, 0);

  broker.handle(b, { sds: 'metrics-gather', id: 2 });
  broker.gone(b);
  assert.equal(timers.pending.size, 0, 'the scrape of an ended worker stops waiting');
  broker.handle(a, { sds: 'metrics-share', ask: 1, metrics: share('a') });
  assert.deepEqual(b.sent, [{ sds: 'metrics-ask', ask: 0 }], 'nothing is sent to an ended worker');
});

test("with no other worker the answer is at once, and other IPC traffic is not the broker's", () => {
  const { workers, broker } = setUp(1);
  const [a] = workers as [Worker & StandIn];
  broker.handle(a, { sds: 'metrics-gather', id: 4 });
  assert.deepEqual(a.sent, [{ sds: 'metrics-gathered', id: 4, shares: [], workers: 1 }]);
  assert.equal(broker.handle(a, { sds: 'turn' }), false);
  assert.equal(broker.handle(a, 'metrics-gather'), false);
  assert.equal(broker.handle(a, null), false);
});
