import type { Dictionary } from '../../../cspro/dictionary/model.js';
import { DEFAULT_CASE_LIMITS, type CaseLimits } from '../../../cspro/case/case-limits.js';
import { AppError, isErrorCode } from '../../../shared/errors.js';
import { startWorker } from '../../../shared/start-worker.js';
import type { ReadErrorShape, ReadItem, ReadWorkerInput, ReadWorkerMessage } from './read-worker-protocol.js';

function toError(e: ReadErrorShape): AppError {
  return new AppError(isErrorCode(e.code) ? e.code : 'INTERNAL', e.message, e.details);
}

/**
 * Reads a case file in a worker thread and yields its cases in batches, each case already
 * encoded for the store, or the reason it could not be read. A failure of the file as a whole
 * (cannot be opened, not the format its name says) is thrown as the reader threw it. Leaving
 * the loop early stops the worker. `onRead` gets the share of the file read (0 to 1) with each batch.
 * A case over `limits` is one that could not be read (CASE_TOO_LARGE naming the field).
 */
export async function* readCaseFileInWorker(
  file: string,
  model: Dictionary,
  onRead?: (share: number) => void,
  limits: CaseLimits = DEFAULT_CASE_LIMITS,
): AsyncGenerator<ReadItem[]> {
  const worker = startWorker(import.meta.url, './read-worker', { file, model, limits } satisfies ReadWorkerInput);
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
