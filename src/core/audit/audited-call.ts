import { toAppError } from '../../shared/errors.js';
import type { Store } from '../../store/store-contract.js';
import { recordAudit, type AuditEntry } from './record.js';

/** One place that changes something, as the CLI and HTTP wrappers name it: `users.add` on `user:alice`. */
export interface AuditSite {
  action: string;
  target?: string;
  details?: Record<string, unknown>;
}

/** The longest error message kept in a failure's details. */
const MAX_MESSAGE = 500;

/**
 * Runs `fn`, a change, and appends its audit record: `success` with `detailsOf(result)`, or
 * `failure` with the error's code and message, after which the error goes on unchanged. The
 * record of a failure is best effort (a store that cannot be opened records nothing); a success
 * whose record cannot be written fails (`detailsOf` returning null records nothing), so an unrecorded change is never reported as done. Used
 * by the wrappers of the CLI (cli/audited.ts) and the HTTP app (http/api-builder.ts).
 */
export async function auditedCall<T>(
  store: () => Promise<Store>,
  source: Pick<AuditEntry, 'actor' | 'origin' | 'channel'> & { details?: Record<string, unknown> },
  site: AuditSite,
  fn: () => Promise<T>,
  detailsOf?: (result: T) => Record<string, unknown> | null | undefined,
): Promise<T> {
  const entry = (outcome: AuditEntry['outcome'], more?: Record<string, unknown>): AuditEntry => ({
    actor: source.actor,
    origin: source.origin,
    channel: source.channel,
    action: site.action,
    target: site.target ?? '',
    outcome,
    details: { ...source.details, ...site.details, ...more },
  });
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    const e = toAppError(err);
    try {
      await recordAudit(await store(), entry('failure', { error: e.code, message: e.message.slice(0, MAX_MESSAGE) }));
    } catch {
      // The failure itself is what the caller must see; a trail that cannot be written (no home) adds nothing.
    }
    throw err;
  }
  const details = detailsOf?.(result);
  // null: the call changed nothing after all (a purge the user did not confirm).
  if (details !== null) await recordAudit(await store(), entry('success', details));
  return result;
}
