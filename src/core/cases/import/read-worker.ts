/**
 * Worker-thread entry of an import: reads one case file and encodes each case for the store
 * (`toCaseWrite`), so parsing runs on one core while the writer commits on another. Sends
 * batches ahead of the writer only up to READ_AHEAD, so memory stays bounded.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Dictionary } from '../../../cspro/dictionary/model.js';
import { toAppError, type ErrorDetails } from '../../../shared/errors.js';
import { checkCaseFields } from '../../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../../store/cases-repo.js';
import { toCaseWrite } from '../merge.js';
import { caseFileReader, type ReadResult } from './case-file-readers.js';
import {
  READ_AHEAD,
  READ_BATCH,
  type ImportWarning,
  type ReadErrorShape,
  type ReadItem,
  type ReadWorkerInput,
  type ReadWorkerMessage,
} from './read-worker-protocol.js';

const port = parentPort!;
const { file, model, limits } = workerData as ReadWorkerInput;
let credits = READ_AHEAD;
let read = 0;
const onPosition = (done: number, total: number) => {
  read = total > 0 ? Math.min(1, done / total) : 0;
};
let wake: (() => void) | undefined;
port.on('message', () => {
  credits += 1;
  wake?.();
});

const send = (m: ReadWorkerMessage) => port.postMessage(m);

/** The case's warnings located by case key and, without a line, by the case's position. */
function located(r: Extract<ReadResult, { ok: true }>): ImportWarning[] | undefined {
  if (!r.warnings || r.warnings.length === 0) return undefined;
  return r.warnings.map((w) => ({
    ...w,
    case: r.case.caseids,
    ...(w.line === undefined && r.index !== undefined ? { index: r.index } : {}),
  }));
}

/** The CASE_TOO_LARGE of a case over the limits, located like the reader's errors; undefined when it fits. */
function overLimit(write: CaseWrite, r: Extract<ReadResult, { ok: true }>): ReadErrorShape | undefined {
  try {
    checkCaseFields(write, limits);
    return undefined;
  } catch (err) {
    const e = toAppError(err);
    const line = (r as { firstLine?: number }).firstLine;
    const where: ErrorDetails = { file, ...(r.index !== undefined ? { index: r.index } : {}), ...(line !== undefined ? { line } : {}) };
    return { code: e.code, message: e.message, details: { ...where, ...e.details } };
  }
}

async function sendBatch(items: ReadItem[]): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits -= 1;
  send({ type: 'batch', items, read });
}

try {
  let batch: ReadItem[] = [];
  for await (const r of caseFileReader(file)(file, model as Dictionary, onPosition, { limits })) {
    if (r.ok) {
      const warnings = located(r);
      const write = toCaseWrite(r.case);
      const tooLarge = overLimit(write, r);
      if (tooLarge) batch.push({ ok: false, error: tooLarge });
      else batch.push({ ok: true, write, ...(warnings ? { warnings } : {}) });
    } else {
      batch.push({ ok: false, error: { code: r.error.code, message: r.error.message, details: r.error.details } });
    }
    if (batch.length >= READ_BATCH) {
      await sendBatch(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await sendBatch(batch);
  send({ type: 'end' });
} catch (err) {
  const e = toAppError(err);
  send({ type: 'fatal', error: { code: e.code, message: e.message, details: e.details } });
}
port.unref();
