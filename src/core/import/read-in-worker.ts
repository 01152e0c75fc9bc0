import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { AppError, isErrorCode } from '../../shared/errors.js';
import type { ReadErrorShape, ReadItem, ReadWorkerInput, ReadWorkerMessage } from './read-worker-protocol.js';

// The worker is this folder's read-worker, compiled in dist, or as TypeScript source when tests
// and benchmarks run under tsx: tsx's loader does not reach worker threads by itself
// (privatenumber/tsx#354), so such a worker registers it before importing the source.
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_FILE = new URL(`./read-worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

function startWorker(workerData: ReadWorkerInput): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_FILE, { workerData });
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_FILE.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

function toError(e: ReadErrorShape): AppError {
  return new AppError(isErrorCode(e.code) ? e.code : 'INTERNAL', e.message, e.details);
}

/**
 * Reads a case file in a worker thread and yields its cases in batches, each case already
 * encoded for the store, or the reason it could not be read. A failure of the file as a whole
 * (cannot be opened, not the format its name says) is thrown as the reader threw it. Leaving
 * the loop early stops the worker. `onRead` gets the share of the file read (0 to 1) with each batch.
 */
export async function* readCaseFileInWorker(file: string, model: Dictionary, onRead?: (share: number) => void): AsyncGenerator<ReadItem[]> {
  const worker = startWorker({ file, model });
  const inbox: ReadWorkerMessage[] = [];
  let failure: Error | undefined;
  let exited = false;
  let notify: (() => void) | undefined;
  const poke = () => {
    notify?.();
    notify = undefined;
  };
  worker.on('message', (m: ReadWorkerMessage) => {
    inbox.push(m);
    poke();
  });
  worker.on('error', (err) => {
    failure = err;
    poke();
  });
  worker.on('exit', () => {
    exited = true;
    poke();
  });
  try {
    for (;;) {
      const m = inbox.shift();
      if (!m) {
        if (failure) throw new AppError('INTERNAL', `reading ${file} failed: ${failure.message}`, { file }, { cause: failure });
        if (exited) throw new AppError('INTERNAL', `the thread reading ${file} stopped before the end of the file`, { file });
        await new Promise<void>((resolve) => (notify = resolve));
        continue;
      }
      if (m.type === 'end') return;
      if (m.type === 'fatal') throw toError(m.error);
      onRead?.(m.read);
      yield m.items;
      worker.postMessage('more');
    }
  } finally {
    await worker.terminate();
  }
}

