import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { DictionaryRecord } from '../../store/dictionaries-repo.js';
import type { StoredCase } from '../../store/cases-repo.js';
import { AppError } from '../../shared/errors.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import { requireDictionary } from '../dictionaries/index.js';
import { limitsOf } from '../home/index.js';
import { tickClock } from './vector-clock.js';
import { newRevision } from './revisions.js';
import { putCase } from './write.js';

/**
 * What a tombstone keeps of a case (docs/limits.md): everything, as CSWeb keeps it, except a
 * field over the current limits (only a case stored before the limits can have one), which is
 * emptied: the label to '', the notes to none, `level-1` to the bare `{"id":{}}`. A tombstone is
 * sent to every device and never read for its content, so deleting such a case sheds its weight.
 */
export function tombstoneOf(c: StoredCase, limits: CaseLimits): StoredCase {
  const out = { ...c, deleted: true };
  if (c.label.length > limits.labelChars) out.label = '';
  if (c.data.length > limits.dataChars) out.data = '{"id":{}}';
  const noteOver = (n: StoredCase['notes'][number]) =>
    n.content.length > limits.noteChars ||
    n.operatorId.length > limits.textChars ||
    n.modifiedTime.length > limits.textChars ||
    n.field.name.length > limits.textChars ||
    n.field.levelKey.length > limits.textChars;
  if (c.notes.length > limits.notes || c.notes.some(noteOver)) out.notes = [];
  return out;
}

/**
 * Soft-deletes a case: it stays in the store flagged deleted (as CSWeb keeps tombstones; see
 * tombstoneOf for what it keeps) with a new revision, so the next incremental breakout removes
 * it from the target. Deleting a tombstone again changes nothing, unless it holds a field over
 * the limits: then that field is emptied at a new revision.
 */
export async function deleteCase(
  store: Store,
  dictionaryName: string,
  guid: string,
): Promise<{ message: string; guid: string; revision: number }> {
  const dict = await requireDictionary(store, dictionaryName);
  return deleteCaseOf(store, dict, guid, limitsOf(store));
}

/**
 * `deleteCase` of a dictionary already found, under the store's `limits`, in one transaction of
 * `scope` (a savepoint when `scope` is a transaction: a sync client's delete records its history
 * in the same one).
 */
export async function deleteCaseOf(
  scope: StoreScope,
  dict: Pick<DictionaryRecord, 'id' | 'name'>,
  guid: string,
  limits: CaseLimits,
): Promise<{ message: string; guid: string; revision: number }> {
  return scope.transaction(async (tx) => {
    // Read through getMany, which serialises with case writes on a store of several writers
    // (docs/decisions.md, "Concurrent writers on the PostgreSQL store"): the tombstone is built
    // from the clock an upload in flight may be about to change.
    const c = (await tx.cases.getMany(dict.id, [guid])).get(guid);
    if (!c) throw new AppError('NOT_FOUND', `case ${guid} not found in dictionary ${dict.name}`, { dictionary: dict.name, case: guid });
    const tombstone = tombstoneOf(c, limits);
    // A tombstone written before the limits sheds its oversize fields when deleted again.
    const shed = tombstone.label !== c.label || tombstone.data !== c.data || tombstone.notes !== c.notes;
    if (c.deleted && !shed) return { message: `Case ${guid} was already deleted`, guid, revision: c.revision };
    const revision = await newRevision(tx, dict.id, 'delete');
    await putCase(tx, dict.id, { ...tombstone, clock: tickClock(c.clock, await tx.settings.serverDeviceId()) }, revision);
    return {
      message: c.deleted ? `Case ${guid} was already deleted; its fields over the limits were emptied` : `Case ${guid} deleted`,
      guid,
      revision,
    };
  });
}

/** Live cases tombstoned per read inside the one transaction of `deleteAllCases`. */
const CLEAR_PAGE = 500;

/**
 * Soft-deletes every live case of a dictionary at one new revision, in one transaction (the
 * CSPro 8.1 data source's "delete the data": docs/sync.md#the-81-data-source). Each case becomes a
 * tombstone as `deleteCase` makes it, so devices and the incremental breakout see the deletions;
 * positions are kept, so none is given again. Reads the cases a page at a time in position order.
 * Returns the revision (the newest of the dictionary when nothing was live) and the count. The
 * transaction is `scope`'s (a savepoint when `scope` is a transaction); `limits` are the store's.
 */
export async function deleteAllCases(
  scope: StoreScope,
  dictionaryId: number,
  origin: string,
  limits: CaseLimits,
): Promise<{ revision: number; cases: number }> {
  return scope.transaction(async (tx) => {
    const device = await tx.settings.serverDeviceId();
    let revision: number | undefined;
    let count = 0;
    let after = 0;
    for (;;) {
      const page = await tx.caseQueries.cases(
        dictionaryId,
        { status: 'notDeletedOnly', order: 'position', ascending: true, filter: { field: 'position', operator: '>', value: after } },
        CLEAR_PAGE,
        0,
      );
      if (page.length === 0) break;
      revision ??= await newRevision(tx, dictionaryId, origin);
      for (const c of page) await putCase(tx, dictionaryId, { ...tombstoneOf(c, limits), clock: tickClock(c.clock, device) }, revision);
      count += page.length;
      after = page.at(-1)!.position;
    }
    return { revision: revision ?? (await tx.cases.maxRevision(dictionaryId)), cases: count };
  });
}
