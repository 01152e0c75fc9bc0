import type { Worker } from 'node:cluster';
import type { WorkerSettings } from '../core/workers/index.js';
import type { MetricsJson } from './prometheus.js';
import { isSdsMessage } from './ipc-message.js';
import { realTimers, type Timers } from '../shared/timers.js';

/**
 * One scrape of `/metrics` over every worker of `sds serve --workers N` (docs/metrics.md#workers):
 * the worker that took the scrape asks the primary, the primary asks every other listening worker
 * for its share (prom-client's `getMetricsAsJSON()`) over the cluster's IPC channel and answers
 * with what came back within `workers.metrics_timeout_ms`. A worker that has not answered by then
 * is left out, and the scrape says how many were in it, rather than waiting on a stuck worker.
 */

type MetricsMessage =
  | { sds: 'metrics-gather'; id: number }
  | { sds: 'metrics-ask'; ask: number }
  | { sds: 'metrics-share'; ask: number; metrics: MetricsJson }
  | { sds: 'metrics-gathered'; id: number; shares: MetricsJson[]; workers: number };

function isMetricsMessage<K extends MetricsMessage['sds']>(m: unknown, what: K): m is Extract<MetricsMessage, { sds: K }> {
  return isSdsMessage<MetricsMessage, K>(m, what);
}

/** The other workers' shares of a scrape, and how many workers the server runs. */
export interface GatheredMetrics {
  shares: MetricsJson[];
  workers: number;
}

/** A worker's link to the others for `/metrics` (HttpConfig.workerMetrics). */
export interface WorkerMetricsLink {
  /** This worker's number (1 … N): the `worker` label of its process metrics. */
  index: number;
  /** Answers the primary's requests for this worker's share with `share()`. */
  answer(share: () => Promise<MetricsJson>): void;
  /** The other workers' shares, as many as answered in time. */
  gather(): Promise<GatheredMetrics>;
}

/**
 * JSON over IPC turns NaN and ±Infinity into null; the text format wants them back as NaN, and
 * prom-client would print `null`, which Prometheus refuses.
 */
function revive(metrics: MetricsJson): MetricsJson {
  for (const m of metrics) for (const v of m.values) if (typeof v.value !== 'number') v.value = NaN;
  return metrics;
}

/** A worker's side (the worker number, the count of workers and the wait from its settings). */
export function ipcWorkerMetrics(
  index: number,
  settings: Pick<WorkerSettings, 'count' | 'metricsTimeoutMs'>,
  timers: Timers = realTimers,
): WorkerMetricsLink {
  const waiting = new Map<number, (g: GatheredMetrics) => void>();
  let nextId = 0;
  let share: (() => Promise<MetricsJson>) | undefined;
  process.on('message', (m: unknown) => {
    if (isMetricsMessage(m, 'metrics-gathered')) {
      const resolve = waiting.get(m.id);
      waiting.delete(m.id);
      resolve?.({ shares: m.shares.map(revive), workers: m.workers });
    } else if (isMetricsMessage(m, 'metrics-ask') && share) {
      const ask = m.ask;
      // A share that fails is left out of that scrape, as a late one is: the primary stops waiting.
      share().then(
        (metrics) => {
          if (process.connected) process.send!({ sds: 'metrics-share', ask, metrics } satisfies MetricsMessage);
        },
        () => {},
      );
    }
  });
  return {
    index,
    answer: (s) => void (share = s),
    gather: () =>
      new Promise<GatheredMetrics>((resolve) => {
        const id = nextId++;
        // The primary answers within the timeout; should it not (it is stopping), this worker's own
        // metrics still go out, a second later, as a scrape of one worker.
        const timer = timers.set(() => {
          waiting.delete(id);
          resolve({ shares: [], workers: settings.count });
        }, settings.metricsTimeoutMs + 1000);
        waiting.set(id, (g) => {
          timers.clear(timer);
          resolve(g);
        });
        if (process.connected) process.send!({ sds: 'metrics-gather', id } satisfies MetricsMessage);
      }),
  };
}

interface Gathering {
  from: Worker;
  id: number;
  waiting: Set<Worker>;
  shares: MetricsJson[];
  timer: unknown;
}

/**
 * The primary's side: on a worker's request, asks the other listening workers for their shares
 * and answers once all have sent theirs, or when the timeout ends the wait for the rest.
 */
export class MetricsBroker {
  private nextAsk = 0;
  private readonly gatherings = new Map<number, Gathering>();

  /** `peers()`: the workers that listen now; `count`: the workers the server runs; `timers`: to wait with (tests fire them). */
  constructor(private readonly o: { peers: () => Worker[]; count: number; timeoutMs: number; timers?: Timers }) {}

  private get timers(): Timers {
    return this.o.timers ?? realTimers;
  }

  /** Handles `m` from `w` when it is a metrics message; false otherwise. */
  handle(w: Worker, m: unknown): boolean {
    if (isMetricsMessage(m, 'metrics-gather')) this.gather(w, m.id);
    else if (isMetricsMessage(m, 'metrics-share')) {
      const g = this.gatherings.get(m.ask);
      if (g?.waiting.delete(w)) {
        g.shares.push(m.metrics);
        if (g.waiting.size === 0) this.finish(m.ask);
      }
    } else return false;
    return true;
  }

  /** Forgets a worker that has ended: no scrape waits for it, and none answers to it. */
  gone(w: Worker): void {
    for (const [ask, g] of this.gatherings) {
      if (g.from === w) {
        this.timers.clear(g.timer);
        this.gatherings.delete(ask);
      } else if (g.waiting.delete(w) && g.waiting.size === 0) this.finish(ask);
    }
  }

  private gather(from: Worker, id: number): void {
    const ask = this.nextAsk++;
    const peers = this.o.peers().filter((w) => w !== from && w.isConnected());
    const timer = this.timers.set(() => this.finish(ask), this.o.timeoutMs);
    this.gatherings.set(ask, { from, id, waiting: new Set(peers), shares: [], timer });
    for (const w of peers) w.send({ sds: 'metrics-ask', ask } satisfies MetricsMessage);
    if (peers.length === 0) this.finish(ask);
  }

  private finish(ask: number): void {
    const g = this.gatherings.get(ask);
    if (!g) return;
    this.timers.clear(g.timer);
    this.gatherings.delete(ask);
    if (g.from.isConnected())
      g.from.send({ sds: 'metrics-gathered', id: g.id, shares: g.shares, workers: this.o.count } satisfies MetricsMessage);
  }
}
