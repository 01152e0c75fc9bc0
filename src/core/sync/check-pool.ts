import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { AppError, isErrorCode } from '../../shared/errors.js';
import { startWorker } from '../../shared/start-worker.js';
import { checkUploadCases } from './check-upload-case.js';
import type { CheckReply, CheckTask } from './check-worker-protocol.js';
import type { UploadChecker, UploadChecks } from './upload-checker.js';
import type { MemoryLease } from '../../shared/memory-budget.js';
import { UPLOAD_MEMORY_FACTOR } from '../home/index.js';

/** Omit over each member of a union (TypeScript's Omit merges them). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The cases of a thread's reply, or its refusal thrown as the main thread would throw it. */
function writesOf(reply: CheckReply): CaseWrite[] {
  if ('writes' in reply) return reply.writes;
  if ('error' in reply)
    throw new AppError(isErrorCode(reply.error.code) ? reply.error.code : 'INTERNAL', reply.error.message, reply.error.details);
  throw new AppError('INTERNAL', 'a check thread left a body of parsed cases unread');
}

/** A check asked for once its upload's checks ended: a bug of sds, never the client's doing. */
function checkedAfterEnd(): AppError {
  return new AppError('INTERNAL', 'an upload was checked after its checks ended (a bug of sds: report it)');
}

/** Dictionaries a check thread keeps; past it the pool forgets the oldest and sends it again when needed. */
const MODELS_PER_THREAD = 16;

/**
 * Fewer cases than this in a batch are checked on the calling thread: a thread's round trip
 * costs more than checking a few cases (an upload of 5 cases, the most common kind).
 */
export const MIN_THREAD_BATCH = 32;

/**
 * Bytes of memory a batch checked in a thread holds beyond what it holds checked on the calling
 * thread, per byte of its JSON: the cases serialised to the thread and read there, the encoded
 * cases and their way back. Measured at 3 to 5.3 (docs/limits.md#memory-of-uploads-in-flight).
 */
export const THREAD_COPY_FACTOR = 6;

/**
 * Small zlib bodies of fewer compressed bytes than this are read and checked on the calling
 * thread, as batches of fewer than MIN_THREAD_BATCH cases are (4 KiB: about 50 cases of 600 bytes).
 */
export const MIN_THREAD_BODY_BYTES = 4096;

interface Pending {
  resolve: (reply: CheckReply) => void;
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
 * part per thread; the cases come back in body order, or the refusal of the lowest-indexed case
 * that does not fit, exactly as `checkUploadCases` on one thread gives them. A thread that dies
 * fails the checks it held (INTERNAL: the upload is refused whole, nothing stored) and is
 * started again when a check next needs it.
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
      p.resolve(r);
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

  /** Sends `task` (without its model fields, filled here) to `thread`; its reply. */
  private send(thread: Thread, model: Dictionary, task: DistributiveOmit<CheckTask, 'task' | 'modelKey'>): Promise<CheckReply> {
    const modelKey = this.keyOf(model);
    const message = { ...task, task: this.nextTask++, modelKey } as CheckTask;
    if (!thread.models.includes(modelKey)) {
      message.model = model;
      thread.models.push(modelKey);
      if (thread.models.length > MODELS_PER_THREAD) message.forget = thread.models.shift();
    }
    return new Promise((resolve, reject) => {
      thread.pending.set(message.task, { resolve, reject });
      thread.worker.postMessage(message);
    });
  }

  /**
   * An upload begins: while it is the only one in flight its body is read and checked on the
   * calling thread. A small body sent to a thread is charged to `memory` when it comes back, as
   * the calling thread charges a body it reads (UPLOAD_MEMORY_FACTOR bytes per byte of JSON); a
   * batch of parsed cases sent to the threads is charged first, THREAD_COPY_FACTOR bytes per
   * byte of its JSON (its copies there and back). What the budget cannot take is read or checked
   * on the calling thread instead, so the budget's bound holds (docs/limits.md#memory-of-uploads-in-flight).
   */
  begin(memory?: MemoryLease): UploadChecks {
    this.uploads += 1;
    let ended = false;
    // The lease's charge for JSON read so far, without this upload's own copy charges.
    let copies = 0;
    let seen = 0;
    let threaded = false;
    return {
      get threaded() {
        return threaded;
      },
      check: async (values, model, offset, limits) => {
        if (ended) throw checkedAfterEnd();
        const json = (memory?.held ?? 0) - copies;
        const fresh = Math.max(0, json - seen);
        seen = json;
        if (!this.busy() || values.length < MIN_THREAD_BATCH) return checkUploadCases(values, model, offset, limits);
        // The JSON charged since the last batch, UPLOAD_MEMORY_FACTOR bytes per byte of it.
        const charge = Math.ceil((fresh / UPLOAD_MEMORY_FACTOR) * THREAD_COPY_FACTOR);
        if (memory && charge > 0) {
          if (!memory.reserve(charge)) return checkUploadCases(values, model, offset, limits);
          copies += charge;
        }
        threaded = true;
        return this.inThreads(values, model, offset, limits);
      },
      checkBody: async (body, model, limits) => {
        if (ended) throw checkedAfterEnd();
        if (!this.busy() || body.bytes.length < MIN_THREAD_BODY_BYTES) return undefined;
        const thread = this.threadAt(this.turn++ % this.threads.length);
        this.parts += 1;
        const task = { kind: 'body', bytes: body.bytes, maxJsonBytes: body.maxJsonBytes, jsonDepth: body.jsonDepth, limits } as const;
        const reply = await this.send(thread, model, task);
        if ('unread' in reply) return undefined;
        // Charged as the main thread charges a small body it inflates (the thread's copies are
        // gone by now); when the budget cannot take it, the body is read again there, which
        // refuses it as it refuses any body the budget cannot take.
        if (memory && !memory.reserve((reply.jsonBytes ?? 0) * UPLOAD_MEMORY_FACTOR)) return undefined;
        seen = memory?.held ?? 0;
        threaded = true;
        return writesOf(reply);
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.uploads -= 1;
      },
    };
  }

  /** How many uploads are in flight (begun and not ended). */
  get inFlight(): number {
    return this.uploads;
  }

  /** Whether work goes to the threads at all: the pool is open and another upload is in flight. */
  private busy(): boolean {
    return !this.closed && this.uploads > 1;
  }

  /** `values` checked in the threads, one part each; the refusal of the lowest-indexed case that does not fit, if any. */
  private async inThreads(values: unknown[], model: Dictionary, offset: number, limits: CaseLimits): Promise<CaseWrite[]> {
    const parts = Math.min(this.threads.length, Math.floor(values.length / MIN_THREAD_BATCH));
    const size = Math.ceil(values.length / parts);
    // Uploads that arrive together start on different threads.
    const first = this.turn++ % this.threads.length;
    const jobs: Promise<CaseWrite[]>[] = [];
    for (let p = 0; p * size < values.length; p++) {
      const thread = this.threadAt((first + p) % this.threads.length);
      this.parts += 1;
      const part = { kind: 'cases', values: values.slice(p * size, (p + 1) * size), offset: offset + p * size, limits } as const;
      jobs.push(this.send(thread, model, part).then(writesOf));
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
