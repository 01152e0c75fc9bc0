import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { AppError, isErrorCode } from '../../shared/errors.js';
import { checkUploadedCase } from './check-case.js';
import type { CheckDone, CheckJob, CheckReply } from './check-protocol.js';

/** Cases per batch handed to the worker. */
const BATCH = 100;
/** Batches of one upload waiting in the worker at most; the request's thread checks the others itself. */
const AHEAD = 2;

// As the import's reader: the compiled worker in dist, or the TypeScript source under tsx
// (whose loader does not reach worker threads by itself, privatenumber/tsx#354).
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_FILE = new URL(`./check-worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/** The one checking worker of the process, started on the first upload large enough to share. */
class CheckPool {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (r: CheckReply) => void; reject: (e: Error) => void }>();
  private nextJob = 1;

  /** Checks a batch in the worker; rejects when the worker fails. */
  run(job: Omit<CheckJob, 'job'>): Promise<CheckReply> {
    const worker = this.start();
    const id = this.nextJob++;
    const reply = new Promise<CheckReply>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    if (this.waiting.size === 1) worker.ref();
    worker.postMessage({ ...job, job: id } satisfies CheckJob);
    return reply;
  }

  done(upload: number): void {
    this.worker?.postMessage({ done: upload } satisfies CheckDone);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = FROM_SOURCE
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_FILE.href)}); });`, { eval: true })
      : new Worker(WORKER_FILE);
    worker.unref();
    worker.on('message', (r: CheckReply) => {
      const w = this.waiting.get(r.job);
      this.waiting.delete(r.job);
      if (this.waiting.size === 0) worker.unref();
      w?.resolve(r);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the case-checking thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const pool = new CheckPool();
let nextUpload = 1;

/**
 * Checks every element of an upload against the dictionary and encodes it for the store, in
 * order, sharing the work between this thread (which also reads the body) and a worker thread:
 * batches go to the worker while it has fewer than AHEAD of this upload's waiting, this thread
 * checks the rest. The first refusal in the order of the body wins, exactly as when one thread
 * checks the cases one after another; a body that cannot be read further is reported only when
 * no case before that point is refused.
 */
export async function checkUploadedCases(elements: AsyncIterable<unknown>, model: Dictionary): Promise<CaseWrite[]> {
  const upload = nextUpload++;
  const parts: (CaseWrite[] | Promise<CheckReply>)[] = [];
  let inWorker = 0;
  let refused = false;
  let modelSent = false;
  let batch: unknown[] = [];
  let start = 0;
  let index = 0;
  const checkHere = () => {
    const writes: CaseWrite[] = [];
    parts.push(writes);
    for (let k = 0; k < batch.length; k++) writes.push(checkUploadedCase(batch[k], model, start + k));
  };
  const flush = () => {
    if (inWorker < AHEAD) {
      inWorker += 1;
      const reply = pool.run({ upload, start, values: batch, ...(modelSent ? {} : { model }) });
      modelSent = true;
      reply.then(
        (r) => {
          inWorker -= 1;
          if (!r.ok) refused = true;
        },
        () => {
          inWorker -= 1;
          refused = true;
        },
      );
      parts.push(reply);
    } else checkHere();
    start = index;
    batch = [];
  };
  let caseError: { error: unknown } | undefined;
  let readError: { error: unknown } | undefined;
  const it = elements[Symbol.asyncIterator]();
  let ended = false;
  try {
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await it.next();
        } catch (err) {
          readError = { error: err };
          ended = true;
          break;
        }
        if (next.done) {
          ended = true;
          break;
        }
        batch.push(next.value);
        index += 1;
        if (batch.length < BATCH) continue;
        flush();
        // A batch refused in the worker ends the upload: stop reading the body.
        if (refused) break;
      }
      // The cases read before the end (or before the body broke) are checked before it is reported.
      if (!refused && batch.length > 0) checkHere();
    } catch (err) {
      caseError = { error: err };
    } finally {
      if (!ended) await it.return?.();
    }
    const writes: CaseWrite[] = [];
    for (const part of parts) {
      const done = await part;
      if (Array.isArray(done)) {
        for (const w of done) writes.push(w);
        continue;
      }
      if (!done.ok) throw new AppError(isErrorCode(done.error.code) ? done.error.code : 'INTERNAL', done.error.message, done.error.details);
      for (const w of done.writes) writes.push(w);
    }
    if (caseError) throw caseError.error;
    if (readError) throw readError.error;
    return writes;
  } catch (err) {
    if (err instanceof Error && !(err instanceof AppError)) throw new AppError('INTERNAL', `checking the uploaded cases failed: ${err.message}`, {}, { cause: err });
    throw err;
  } finally {
    pool.done(upload);
  }
}
