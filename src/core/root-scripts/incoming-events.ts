import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { nowIso } from '../../store/clock.js';
import { requireDictionary } from '../dictionaries/index.js';
import { spawnJobProcess, reapDeadJobs, isBreakoutConfigured } from '../breakout/index.js';

/** Events of docs/status-and-incoming-webhooks.md#incoming-events-post-breakout-webhookphp that the breakout webhook accepts. */
export const INCOMING_EVENTS = ['case_uploaded', 'case_modified', 'case_verified', 'dictionary_uploaded'] as const;
type IncomingEvent = (typeof INCOMING_EVENTS)[number];

/** Events that change what a dictionary's target holds, so they ask for an incremental breakout. */
const CASE_EVENTS: readonly IncomingEvent[] = ['case_uploaded', 'case_modified', 'case_verified'];

/** Origin of the jobs the breakout webhook starts. */
const WEBHOOK_ORIGIN = 'webhook';

/**
 * Reply of `POST /breakout-webhook.php`
 * (docs/status-and-incoming-webhooks.md#incoming-events-post-breakout-webhookphp: `{status,
 * message}`).
 */
export interface IncomingReply {
  /** `scheduled`: a job started; `queued`: a job runs, one follow-up will apply this event; `accepted`: nothing to run. */
  status: 'scheduled' | 'queued' | 'accepted';
  message: string;
  event: IncomingEvent;
  dictionary: string;
  /** The job started, or the job running that the follow-up waits for; null for `accepted`. */
  job_id: string | null;
}

function field(body: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = body[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new AppError('WHK-003', `invalid payload: missing required field "${name}"`, { field: name });
    return undefined;
  }
  if (typeof v !== 'string') throw new AppError('WHK-003', `invalid payload: field "${name}" must be a string`, { field: name });
  return v;
}

/**
 * Handles one event of the data-collection client
 * (docs/status-and-incoming-webhooks.md#incoming-events-post-breakout-webhookphp). Case events
 * (uploaded,
 * modified, verified) schedule an incremental breakout of the dictionary and return at once;
 * a burst of them coalesces: with no job of the dictionary pending or running one is started,
 * otherwise a follow-up flag is set, and the running job's end starts exactly one more
 * (breakout/jobs/follow-up.ts). `dictionary_uploaded` is accepted and starts nothing: the next breakout adapts
 * the tables to the new dictionary. A missing `event` means `case_uploaded` (the PHP script read
 * only `dictionary`).
 */
export async function receiveEvent(store: Store, body: unknown, opts: { spawn?: boolean } = {}): Promise<IncomingReply> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('WHK-003', 'invalid payload: the body must be a JSON object with event and dictionary', { field: 'body' });
  }
  const b = body as Record<string, unknown>;
  const name = field(b, 'dictionary', true)!;
  const given = field(b, 'event', false) ?? 'case_uploaded';
  if (!(INCOMING_EVENTS as readonly string[]).includes(given)) {
    throw new AppError('WHK-003', `invalid payload: unknown event "${given}"; expected one of ${INCOMING_EVENTS.join(', ')}`, {
      field: 'event',
    });
  }
  field(b, 'case_id', false);
  const event = given as IncomingEvent;
  if (!CASE_EVENTS.includes(event)) {
    return {
      status: 'accepted',
      message: `${event} for ${name} accepted; the next breakout adapts the tables`,
      event,
      dictionary: name,
      job_id: null,
    };
  }
  const dict = await requireDictionary(store, name);
  // An event never configures breakout: without a target (isBreakoutConfigured, as the status
  // webhook and the scheduler define it) nothing runs, so nothing lands in the embedded default.
  if (!(await isBreakoutConfigured(store, dict))) {
    return {
      status: 'accepted',
      message: `${event} for ${dict.name} accepted; breakout is not configured for it (it has no breakout target), so nothing runs`,
      event,
      dictionary: dict.name,
      job_id: null,
    };
  }
  await reapDeadJobs(store);
  const out = await store.followUps.request(
    dict.id,
    { id: randomUUID(), dictionaries: [dict.name], mode: 'incremental', threads: 1, overwrite: false, origin: WEBHOOK_ORIGIN },
    nowIso(),
  );
  if ('started' in out) {
    if (opts.spawn !== false) await spawnJobProcess(store, out.started.id);
    return {
      status: 'scheduled',
      message: `incremental breakout of ${dict.name} scheduled (job ${out.started.id})`,
      event,
      dictionary: dict.name,
      job_id: out.started.id,
    };
  }
  return {
    status: 'queued',
    message: `breakout job ${out.queued.id} of ${dict.name} is ${out.queued.status}; one follow-up run will apply this event after it (${out.events} event(s) waiting)`,
    event,
    dictionary: dict.name,
    job_id: out.queued.id,
  };
}
