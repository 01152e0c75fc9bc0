/**
 * The store contract suite's two stores (docs/architecture.md#the-store-contract): a test body
 * runs once on a SQLite store in a temporary home and once on a PostgreSQL store in a database of
 * its own on the local server (SDS_TEST_PG_URL). A PostgreSQL server that cannot be reached fails
 * the test; it never skips.
 */
import { test } from 'node:test';
import type { Store } from '../../src/store/open-store.js';
import { openPostgresStore } from '../../src/store/postgresql/open-postgres-store.js';
import { STORE_KINDS, tempHome, tempStore, type StoreKind } from './temp-home.js';
import { createPostgresDatabase } from './test-databases.js';

export type { StoreKind } from './temp-home.js';

/** A new, empty store of `kind` at the latest schema, and how to throw it away. */
export async function openTestStore(kind: StoreKind): Promise<{ store: Store; cleanup(): Promise<void> }> {
  // The kind asked for, whatever store the run's other homes use (SDS_TEST_STORE).
  if (kind === 'sqlite') return tempStore('sqlite');
  const home = await tempHome('sqlite');
  const database = await createPostgresDatabase();
  const url = database.config.url!;
  try {
    const store = await openPostgresStore({ connectionString: url, max: 4 }, home, { migrate: true });
    return {
      store,
      async cleanup() {
        await store.close();
        await database.drop();
        await home.cleanup();
      },
    };
  } catch (err) {
    await database.drop();
    await home.cleanup();
    throw err;
  }
}

/**
 * Declares the test `name` once per store kind (`name [sqlite]`, `name [postgresql]`); `fn` gets a
 * new store, closed and dropped after it.
 */
export function testOnBothStores(name: string, fn: (store: Store, kind: StoreKind) => Promise<void>): void {
  for (const kind of STORE_KINDS) {
    test(`${name} [${kind}]`, async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        await fn(store, kind);
      } finally {
        await cleanup();
      }
    });
  }
}
