import type { Worker } from 'node:worker_threads';
import { AppError } from '../shared/errors.js';
import { startWorker } from '../shared/start-worker.js';
import type { CheckpointResult, CheckpointWorkerInput, FromCheckpointWorker, ToCheckpointWorker } from './wal-checkpoint-protocol.js';

export type { CheckpointResult } from './wal-checkpoint-protocol.js';

/** How often the worker checkpoints, and the WAL size (in pages) at which a writer does it itself. */
export interface CheckpointOptions {
  intervalMs?: number;
  backstopPages?: number;
  /** false: only raise the backstop, start no thread (another process checkpoints the file). */
  thread?: boolean;
}

export const CHECKPOINT_DEFAULTS = { intervalMs: 100, backstopPages: 8192 } as const;

/**
 * Longest wait in `stop` for the worker to close its connection: it finishes the checkpoint it is
 * in first, which takes milliseconds; a worker stuck longer is left to end on its own.
 */
const STOP_WAIT_MS = 2000;

/**
 * Checkpoints a WAL-mode SQLite file from a worker thread. With SQLite's default, the writer
 * checkpoints by itself whenever its commit leaves more than 1,000 pages in the WAL: it copies
 * those pages into the database file at random places and fsyncs it, and a sync upload or an
 * import batch then waits for that in its commit (about a third of an upload's time,
 * bench/README.md). Here a second connection copies the WAL back on a timer, on another core, and
 * the writer's own auto-checkpoint is raised to a backstop that only acts if this worker falls
 * behind or dies. Durability does not depend on it: with the store's `synchronous = FULL` every
 * commit has already fsynced its frames in the WAL before it returns (an import, in
 * `Store.deferSync`, fsyncs them all at its end), and a checkpoint only moves frames into the
 * database file (docs/durability.md).
 */
export class WalCheckpointer {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  private failure: AppError | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly path: string,
    private readonly closed: Int32Array,
  ) {
    worker.unref();
    worker.on('message', (m: FromCheckpointWorker) => {
      const waiter = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.type === 'checkpointed') waiter?.resolve(m.result);
      else waiter?.reject(new AppError('IO_ERROR', `checkpoint of ${this.path} failed: ${m.message}`, { file: this.path }));
    });
    // A dead worker leaves checkpoints to the writer's backstop; nothing is lost.
    worker.on('error', (err) =>
      this.fail(new AppError('INTERNAL', `the checkpoint worker of ${path} failed: ${err.message}`, { file: path }, { cause: err })),
    );
    worker.on('exit', () => this.fail(new AppError('INTERNAL', `the checkpoint worker of ${path} has stopped`, { file: path })));
  }

  /** Starts the worker on the SQLite file at `path`. */
  static start(path: string, opts: CheckpointOptions = {}): WalCheckpointer {
    const closed = new SharedArrayBuffer(4);
    const input: CheckpointWorkerInput = { path, intervalMs: opts.intervalMs ?? CHECKPOINT_DEFAULTS.intervalMs, closed };
    return new WalCheckpointer(startWorker(import.meta.url, './wal-checkpoint-worker', input), path, new Int32Array(closed));
  }

  /** Runs one checkpoint now, in the worker, and returns what SQLite reported. */
  checkpointNow(): Promise<CheckpointResult> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ type: 'checkpoint', id });
    });
  }

  /** Whether the worker is still running. */
  get running(): boolean {
    return this.failure === undefined;
  }

  /**
   * Asks the worker to close its connection and waits (up to STOP_WAIT_MS) until it has, so that
   * once the store is closed no connection of ours still holds its files: a caller may then move
   * or remove the home. The thread itself ends on its own; the process never waits for it.
   */
  stop(): void {
    if (this.failure) return;
    this.post({ type: 'stop' });
    Atomics.wait(this.closed, 0, 0, STOP_WAIT_MS);
    this.fail(new AppError('INTERNAL', `the checkpoint worker of ${this.path} was stopped`, { file: this.path }));
  }

  private post(m: ToCheckpointWorker): void {
    this.worker.postMessage(m);
  }

  private fail(err: AppError): void {
    this.failure ??= err;
    for (const w of this.pending.values()) w.reject(this.failure);
    this.pending.clear();
  }
}
