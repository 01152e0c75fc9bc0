/**
 * Worker-thread entry of a sync upload's case checks: gets batches of parsed elements and sends
 * back each case checked and encoded for the store (`checkUploadedCase`), or the batch's first
 * refusal, so the checks of one upload run on two cores.
 */
import { parentPort } from 'node:worker_threads';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { toAppError } from '../../shared/errors.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { checkUploadedCase } from './check-case.js';
import type { CheckDone, CheckJob, CheckReply } from './check-protocol.js';

const port = parentPort!;
const models = new Map<number, Dictionary>();

port.on('message', (m: CheckJob | CheckDone) => {
  if ('done' in m) {
    models.delete(m.done);
    return;
  }
  if (m.model) models.set(m.upload, m.model);
  const model = models.get(m.upload);
  if (!model) {
    port.postMessage({ job: m.job, ok: false, error: { code: 'INTERNAL', message: 'the case-checking thread restarted during an upload', details: {} } } satisfies CheckReply);
    return;
  }
  const writes: CaseWrite[] = [];
  let reply: CheckReply;
  try {
    for (let k = 0; k < m.values.length; k++) writes.push(checkUploadedCase(m.values[k], model, m.start + k));
    reply = { job: m.job, ok: true, writes };
  } catch (err) {
    const e = toAppError(err);
    reply = { job: m.job, ok: false, error: { code: e.code, message: e.message, details: e.details } };
  }
  port.postMessage(reply);
});
