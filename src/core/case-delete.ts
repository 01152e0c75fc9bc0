import type { Store } from '../store/open-store.js';
import { AppError } from '../shared/errors.js';
import { requireDictionary } from './dictionaries.js';
import { tickClock } from './vector-clock.js';

/**
 * Soft-deletes a case: it stays in the store flagged deleted (as CSWeb keeps tombstones) with a
 * new revision, so the next incremental breakout removes it from the target.
 */
export function deleteCase(store: Store, dictionaryName: string, guid: string): { message: string; guid: string; revision: number } {
  const dict = requireDictionary(store, dictionaryName);
  return store.cases.write(() => {
    const c = store.cases.get(dict.id, guid);
    if (!c) throw new AppError('NOT_FOUND', `case ${guid} not found in dictionary ${dict.name}`, { dictionary: dict.name, case: guid });
    if (c.deleted) return { message: `Case ${guid} was already deleted`, guid, revision: c.revision };
    const revision = store.cases.nextRevision(dict.id, 'delete');
    store.cases.upsert(dict.id, { ...c, deleted: true, clock: tickClock(c.clock, store.settings.serverDeviceId()) }, revision);
    return { message: `Case ${guid} deleted`, guid, revision };
  });
}
