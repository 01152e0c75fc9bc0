import type { StoreScope } from '../../store/store-contract.js';

/**
 * Allocates the next revision of the store for a write to a dictionary's cases; `origin` says who
 * wrote (`sync:<device>`, `import:<file>`, `delete`, …). Call inside the write transaction that
 * uses it, so a revision never exists without its cases.
 */
export async function newRevision(store: StoreScope, dictionaryId: number, origin: string): Promise<number> {
  return store.cases.nextRevision(dictionaryId, origin);
}

/**
 * Records a revision number that was allocated elsewhere (a CSWeb import keeps CSWeb's numbers:
 * docs/migrating-from-csweb.md#revisions-and-tablets); the store's counter continues above it.
 * Dictionary 0 records a number that belongs to no dictionary (CSWeb's highest, which may have
 * written no case). Call inside the write transaction.
 */
export async function keepRevision(store: StoreScope, revision: number, dictionaryId: number, origin: string): Promise<void> {
  await store.cases.recordRevision(revision, dictionaryId, origin);
}
