import cluster, { type Worker } from 'node:cluster';
import { restartDelay, type WorkerSettings } from '../core/workers/index.js';
import type { LogLevel } from './config.js';
import { TurnBroker } from './write-turns-ipc.js';
import { MetricsBroker } from './worker-metrics-ipc.js';
import { isSdsMessage } from './ipc-message.js';

/**
 * The primary process of `sds serve --workers N` (docs/production.md#workers): it serves nothing
 * itself. It starts N workers, each a whole `sds serve` on the shared port (node:cluster), of
 * which the first runs the duties of the machine; hands out turns to write on a SQLite store;
 * restarts a worker that ends unasked, within the restart limit; gathers the workers' metrics for
 * a scrape of `/metrics` (docs/metrics.md#workers); and on SIGTERM or SIGINT asks
 * every worker to finish its requests in flight and waits for all of them.
 */

/** Environment variables a worker is started with: its number, and whether it runs the duties. */
export const WORKER_ENV = { index: 'SDS_SERVE_WORKER', duties: 'SDS_SERVE_DUTIES' } as const;

/** What a worker tells the primary once it listens. */
interface ListeningMessage {
  sds: 'listening';
  url: string;
  node: string;
}

/** What the primary tells a worker to stop: finish requests in flight, then end. */
export const STOP_MESSAGE = { sds: 'stop' } as const;

/** The message a worker sends once it listens. */
export function listeningMessage(url: string, node: string): ListeningMessage {
  return { sds: 'listening', url, node };
}

function isListening(m: unknown): m is ListeningMessage {
  return isSdsMessage<ListeningMessage>(m, 'listening');
}

export interface WorkerGroupOptions {
  settings: WorkerSettings;
  log(line: string, level?: LogLevel): void;
  /** Called once, when every worker of the first start listens. */
  onListening(url: string): void;
  /** Resolves with the signal that stops the group. */
  stopSignal: Promise<NodeJS.Signals>;
  /** Called once the stop signal has come (to log it). */
  onStopping(sig: NodeJS.Signals): void;
  now?: () => number;
}

/** Runs the group until it is stopped or gives up; resolves with the exit code of the primary. */
export function runWorkerGroup(o: WorkerGroupOptions): Promise<number> {
  const now = o.now ?? Date.now;
  const broker = new TurnBroker();
  const restarts: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const live = new Map<Worker, { index: number; listening: boolean }>();
  const metrics = new MetricsBroker({
    peers: () => [...live].filter(([, x]) => x.listening).map(([w]) => w),
    count: o.settings.count,
    timeoutMs: o.settings.metricsTimeoutMs,
  });
  let ready = false;
  let stopping = false;
  let exitCode = 0;
  let resolveDone: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    if (live.size > 0)
      o.log(`sds serve: asking ${live.size} worker${live.size === 1 ? '' : 's'} to finish their requests in flight and stop`);
    for (const w of live.keys()) if (w.isConnected()) w.send(STOP_MESSAGE);
    if (live.size === 0) resolveDone(exitCode);
  };

  const fork = (index: number) => {
    const w = cluster.fork({ [WORKER_ENV.index]: String(index), [WORKER_ENV.duties]: index === 1 ? '1' : '0' });
    live.set(w, { index, listening: false });
    w.on('message', (m: unknown) => {
      if (broker.handle(w, m) || metrics.handle(w, m)) return;
      if (!isListening(m)) return;
      live.get(w)!.listening = true;
      o.log(`sds serve: worker ${index} (node ${m.node}) listening${index === 1 ? '; it runs the duties of this machine' : ''}`);
      if (stopping) w.send(STOP_MESSAGE);
      else if (!ready && [...live.values()].every((x) => x.listening) && live.size === o.settings.count) {
        ready = true;
        o.onListening(m.url);
      }
    });
    w.on('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      const was = live.get(w)!;
      live.delete(w);
      broker.gone(w);
      metrics.gone(w);
      const how = signal ? `by ${signal}` : `with exit code ${code}`;
      if (stopping) {
        if (code !== 0) exitCode ||= code ?? 1;
        if (live.size === 0) resolveDone(exitCode);
        return;
      }
      if (!ready) {
        // A worker that cannot start (bad setting, store not migrated) would fail again: its
        // message is on stderr already; stop the others with its exit code.
        o.log(`sds serve: worker ${index} ended ${how} before listening; stopping`, 'error');
        stopAll(code || 1);
        return;
      }
      const delay = restartDelay(restarts, now(), o.settings);
      if (delay === undefined) {
        o.log(
          `sds serve: worker ${index} ended ${how}; ${o.settings.restartLimit} restarts within ${o.settings.restartWindowMs} ms already, stopping (workers.restart_limit)`,
          'error',
        );
        stopAll(1);
        return;
      }
      restarts.push(now());
      o.log(`sds serve: worker ${index} ended ${how}${was.listening ? '' : ' before listening'}; restarting it in ${delay} ms`, 'warn');
      const t = setTimeout(() => {
        timers.delete(t);
        if (!stopping) fork(index);
      }, delay);
      timers.add(t);
    });
  };

  // The workers accept from the one listening socket themselves (the kernel hands each connection
  // to one): the primary's round-robin would pass every connection through this process, and a
  // connection it hands to a worker that has just died is lost (docs/decisions.md#workers-on-one-machine-issue-29).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  for (let i = 1; i <= o.settings.count; i++) fork(i);
  void o.stopSignal.then((sig) => {
    o.onStopping(sig);
    stopAll(0);
  });
  return done;
}
