import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { AppError, isErrorCode } from '../../shared/errors.js';
import { startWorker } from '../../shared/start-worker.js';
import { checkUploadCases } from './check-upload-case.js';
import type { CheckReply, CheckTask } from './check-worker-protocol.js';
import type { UploadChecker } from './upload-checker.js';

/** Dictionaries a check thread keeps; past it the pool forgets the oldest and sends it again when needed. */
const MODELS_PER_THREAD = 16;

/**
 * Fewer cases than this in a batch are checked on the calling thread: a thread's round trip
 * costs more than checking a few cases (an upload of 5 cases, the most common kind).
 */
export const MIN_THREAD_BATCH = 32;

interface Pending {
  resolve: (writes: CaseWrite[]) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  /** The dictionary keys this thread holds, oldest first. */
  models: number[];
  pending: Map<number, Pending>;
}

/**
 * Threads that check sync upload cases against their dictionary and encode them for the store,
 * so the main thread of `sds serve` keeps to HTTP, downloads and the single SQLite writer
 * (docs/decisions.md, "Upload checks in threads"). While only one upload is in flight its
 * cases are checked on the calling thread, which would otherwise wait for the thread: a lone
 * tablet's upload gains nothing from the round trip. Beside others, a batch is split into one
 * part per thread;
 * the cases come back in body order, or the refusal of the lowest-indexed case that does not
 * fit, exactly as `checkUploadCases` on one thread gives them. A thread that dies fails the
 * checks it held (INTERNAL: the upload is refused whole, nothing stored) and is replaced.
 */
export class CheckPool implements UploadChecker {
  /** One slot per thread; a thread that died leaves its slot empty until a check needs it. */
  private readonly threads: (Thread | undefined)[] = [];
  private readonly keys = new WeakMap<Dictionary, number>();
  private nextKey = 1;
  private nextTask = 1;
  private turn = 0;
  private uploads = 0;
  private parts = 0;
  private closed = false;

  /**
   * Starts `size` threads (at least 1). `resourceLimits` bound each thread's heap (tests make a
   * thread run out of memory with them; by default a thread has the engine's own limits).
   */
  constructor(
    size: number,
    private readonly resourceLimits?: ResourceLimits,
  ) {
    for (let i = 0; i < Math.max(1, size); i++) this.threads.push(this.start(i));
  }

  /** How many threads check. */
  get size(): number {
    return this.threads.length;
  }

  /** How many parts of batches were sent to the threads so far. */
  get partsChecked(): number {
    return this.parts;
  }

  /** The thread of slot `i`, started again if the one before died. */
  private threadAt(i: number): Thread {
    return this.threads[i] ?? (this.threads[i] = this.start(i));
  }

  private start(slot: number): Thread {
    const worker = startWorker(import.meta.url, './check-worker', undefined, this.resourceLimits);
    const thread: Thread = { worker, models: [], pending: new Map() };
    worker.on('message', (r: CheckReply) => {
      const p = thread.pending.get(r.task);
      if (!p) return;
      thread.pending.delete(r.task);
      if ('writes' in r) p.resolve(r.writes);
      else p.reject(new AppError(isErrorCode(r.error.code) ? r.error.code : 'INTERNAL', r.error.message, r.error.details));
    });
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      for (const p of thread.pending.values())
        p.reject(new AppError('INTERNAL', `an upload check thread stopped (${why}); nothing of this upload was stored: send it again`));
      thread.pending.clear();
      // Started again only when a check needs it: a thread that cannot start fails one upload
      // at a time, never a loop of restarts.
      if (this.threads[slot] === thread) this.threads[slot] = undefined;
    };
    worker.on('error', (err) => end(err.message));
    worker.on('exit', (code) => end(`exit code ${code}`));
    return thread;
  }

  /** The key of a dictionary model: a model read again (a new version) is another object, so another key. */
  private keyOf(model: Dictionary): number {
    let key = this.keys.get(model);
    if (key === undefined) {
      key = this.nextKey++;
      this.keys.set(model, key);
    }
    return key;
  }

  private send(thread: Thread, model: Dictionary, values: unknown[], offset: number, limits: CaseLimits): Promise<CaseWrite[]> {
    const modelKey = this.keyOf(model);
    const known = thread.models.includes(modelKey);
    const task: CheckTask = { task: this.nextTask++, modelKey, values, offset, limits };
    if (!known) {
      task.model = model;
      thread.models.push(modelKey);
      if (thread.models.length > MODELS_PER_THREAD) task.forget = thread.models.shift();
    }
    return new Promise((resolve, reject) => {
      thread.pending.set(task.task, { resolve, reject });
      thread.worker.postMessage(task);
    });
  }

  /** Counts the uploads in flight: while there is one, it is checked on the calling thread. */
  begin(): () => void {
    this.uploads += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.uploads -= 1;
    };
  }

  /** How many uploads are in flight (begun and not ended). */
  get inFlight(): number {
    return this.uploads;
  }

  /**
   * `values` (the first at `offset` in the body) checked and encoded in the threads, one part
   * each; on the calling thread when this is the only upload in flight, when the batch has fewer
   * than MIN_THREAD_BATCH cases, or when the pool is closed.
   */
  async check(values: unknown[], model: Dictionary, offset: number, limits: CaseLimits): Promise<CaseWrite[]> {
    if (this.closed || this.uploads <= 1 || values.length < MIN_THREAD_BATCH) return checkUploadCases(values, model, offset, limits);
    const parts = Math.min(this.threads.length, Math.floor(values.length / MIN_THREAD_BATCH));
    const size = Math.ceil(values.length / parts);
    // Uploads that arrive together start on different threads.
    const first = this.turn++ % this.threads.length;
    const jobs: Promise<CaseWrite[]>[] = [];
    for (let p = 0; p * size < values.length; p++) {
      const thread = this.threadAt((first + p) % this.threads.length);
      this.parts += 1;
      jobs.push(this.send(thread, model, values.slice(p * size, (p + 1) * size), offset + p * size, limits));
    }
    // Every part settles before the answer, so no thread is still busy with a refused upload;
    // the refusal is that of the lowest part, whose first bad case comes first in the body.
    const settled = await Promise.allSettled(jobs);
    const out: CaseWrite[] = [];
    for (const s of settled) {
      if (s.status === 'rejected') throw s.reason;
      for (const w of s.value) out.push(w);
    }
    return out;
  }

  /** Stops the threads; checks asked for afterwards run on the calling thread. Call once no upload is in flight. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t?.worker.terminate()));
  }
}
