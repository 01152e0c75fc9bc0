import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../../src/shared/home.js';
import { initHome } from '../../src/core/home/index.js';
import { openStore, SqliteStore, type Store } from '../../src/store/open-store.js';
import type { Database } from 'better-sqlite3';
import { createPostgresDatabase } from './test-databases.js';

/**
 * A fresh, empty directory under the system temp dir, with the paths of a home in it but no home
 * yet (no store): for tests of `sds init`, `sds quickstart` and HOME_NOT_FOUND. `cleanup` removes it.
 */
export function tempDir(): HomePaths & { cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'sds-test-'));
  return { ...resolveHome(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A fresh home under the system temp dir, made as `sds init` makes one (every command but
 * `init` and `quickstart` needs an existing home); `cleanup` removes it.
 */
export async function tempHome(): Promise<HomePaths & { cleanup(): void }> {
  const home = tempDir();
  // `npm run test:pg` runs the suites on the PostgreSQL store: each home gets a database of its
  // own, named in its config.json as an office would (docs/production.md#choosing-a-store).
  if (process.env.SDS_TEST_STORE === 'postgresql') {
    const db = await createPostgresDatabase();
    // Private as `sds init` wants a home's config.json (docs/architecture.md#permissions-of-a-home).
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: db.config.url } }), { mode: 0o600 });
    await initHome(home);
    return {
      ...home,
      cleanup() {
        home.cleanup();
        // The store's connections are closed by the test before it cleans up; a database still in
        // use is left to the next run's sweep rather than failing the test here.
        db.drop().catch(() => undefined);
      },
    };
  }
  await initHome(home);
  return home;
}

/** A fresh home with its store open; `cleanup` closes the store and removes the home. */
export async function tempStore(): Promise<{ store: Store; home: HomePaths; cleanup(): Promise<void> }> {
  const home = await tempHome();
  const store = await openStore(home);
  return {
    store,
    home,
    async cleanup() {
      await store.close();
      home.cleanup();
    },
  };
}

/** The SQLite connection of a store, for tests that look at the file itself. */
export function sqliteDb(store: Store): Database {
  if (!(store instanceof SqliteStore)) throw new Error('not a SQLite store');
  return store.db;
}

/** Path of a fixture file of the repository. */
export function fixture(name: string): string {
  return new URL(`../../fixtures/cspro/${name}`, import.meta.url).pathname;
}
