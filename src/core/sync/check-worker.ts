/**
 * Worker-thread entry of the upload check pool (check-pool.ts): checks parts of sync upload
 * bodies, or reads and checks a whole small body, against their dictionary and encodes them for
 * the store, so the main thread of `sds serve` keeps to HTTP and the single SQLite writer
 * (docs/decisions.md, "Upload checks in threads").
 */
import { parentPort } from 'node:worker_threads';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { toAppError } from '../../shared/errors.js';
import { checkUploadCases } from './check-upload-case.js';
import { readSmallBody } from './small-body.js';
import type { CheckRefusal, CheckReply, CheckTask } from './check-worker-protocol.js';

const port = parentPort!;
/** The dictionaries this thread has been sent, by key; the pool sends each thread a key's model once. */
const models = new Map<number, Dictionary>();

function refusal(err: unknown): CheckRefusal {
  const e = toAppError(err);
  return { code: e.code, message: e.message, details: e.details };
}

function answer(t: CheckTask): CheckReply {
  const model = models.get(t.modelKey);
  if (!model) return { task: t.task, error: refusal(new Error(`check thread was not sent dictionary ${t.modelKey}`)) };
  if (t.kind === 'cases') {
    try {
      return { task: t.task, writes: checkUploadCases(t.values, model, t.offset, t.limits) };
    } catch (err) {
      return { task: t.task, error: refusal(err) };
    }
  }
  const body = readSmallBody(t.bytes, t.maxJsonBytes, t.jsonDepth);
  if (!body) return { task: t.task, unread: true };
  try {
    return { task: t.task, jsonBytes: body.jsonBytes, writes: checkUploadCases(body.values, model, 0, t.limits) };
  } catch (err) {
    return { task: t.task, jsonBytes: body.jsonBytes, error: refusal(err) };
  }
}

port.on('message', (t: CheckTask) => {
  if (t.forget !== undefined) models.delete(t.forget);
  if (t.model) models.set(t.modelKey, t.model);
  port.postMessage(answer(t));
});
