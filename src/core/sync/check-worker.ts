/**
 * Worker-thread entry of the upload check pool (check-pool.ts): checks parts of sync upload
 * bodies against their dictionary and encodes them for the store, so the main thread of
 * `sds serve` keeps to HTTP and the single SQLite writer (docs/decisions.md, "Upload checks in threads").
 */
import { parentPort } from 'node:worker_threads';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { toAppError } from '../../shared/errors.js';
import { checkUploadCases } from './check-upload-case.js';
import type { CheckReply, CheckTask } from './check-worker-protocol.js';

const port = parentPort!;
/** The dictionaries this thread has been sent, by key; the pool sends each thread a key's model once. */
const models = new Map<number, Dictionary>();

port.on('message', (t: CheckTask) => {
  if (t.forget !== undefined) models.delete(t.forget);
  if (t.model) models.set(t.modelKey, t.model);
  let reply: CheckReply;
  try {
    const model = models.get(t.modelKey);
    if (!model) throw new Error(`check thread was not sent dictionary ${t.modelKey}`);
    reply = { task: t.task, writes: checkUploadCases(t.values, model, t.offset, t.limits) };
  } catch (err) {
    const e = toAppError(err);
    reply = { task: t.task, error: { code: e.code, message: e.message, details: e.details } };
  }
  port.postMessage(reply);
});
