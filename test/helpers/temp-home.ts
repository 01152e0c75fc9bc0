import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../../src/shared/home.js';
import { initHome } from '../../src/core/home/index.js';
import { openStore, SqliteStore, type Store } from '../../src/store/open-store.js';
import type { Database } from 'better-sqlite3';
import { numbered } from '../../src/store/postgresql/case-query-sql.js';
import { PostgresStore } from '../../src/store/postgresql/pg-store.js';
import { openPostgresStore } from '../../src/store/postgresql/open-postgres-store.js';
import { createPostgresDatabase } from './test-databases.js';

/**
 * A fresh, empty directory under the system temp dir, with the paths of a home in it but no home
 * yet (no store): for tests of `sds init`, `sds quickstart` and HOME_NOT_FOUND. `cleanup` removes it.
 */
export function tempDir(): HomePaths & { cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'sds-test-'));
  return { ...resolveHome(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The databases a store can be kept in (docs/production.md#choosing-a-store). */
export const STORE_KINDS = ['sqlite', 'postgresql'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * The store the test homes of this run use: `npm test` keeps them in SQLite, `npm run test:pg`
 * (SDS_TEST_STORE=postgresql) in PostgreSQL. A test about one store's own behaviour asks for it.
 */
export function testStoreKind(): StoreKind {
  return process.env.SDS_TEST_STORE === 'postgresql' ? 'postgresql' : 'sqlite';
}

/** A home of the tests; `cleanup` removes its folder and, on PostgreSQL, drops its database. */
export type TempHome = HomePaths & { cleanup(): Promise<void> };

/**
 * A fresh home under the system temp dir, made as `sds init` makes one (every command but
 * `init` and `quickstart` needs an existing home), its store of `kind` (the run's store unless a
 * test asks for one); `cleanup` removes it.
 */
export async function tempHome(kind: StoreKind = testStoreKind()): Promise<TempHome> {
  const home = tempDir();
  // On PostgreSQL each home gets a database of its own, named in its config.json as an office
  // would (docs/production.md#choosing-a-store).
  if (kind === 'postgresql') {
    const db = await createPostgresDatabase(await postgresStoreTemplate());
    // Private as `sds init` wants a home's config.json (docs/architecture.md#permissions-of-a-home).
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: db.config.url } }), { mode: 0o600 });
    await initHome(home);
    return {
      ...home,
      async cleanup() {
        home.cleanup();
        // WITH (FORCE) ends what a test left connected (a server child killed mid-request).
        await db.drop();
      },
    };
  }
  await initHome(home);
  return { ...home, cleanup: async () => home.cleanup() };
}

let template: Promise<string> | undefined;

/**
 * A database holding a new, empty PostgreSQL store at the latest schema, which tempHome copies
 * (CREATE DATABASE … TEMPLATE) rather than migrating each home's database: a second per home
 * less. Named after the PostgreSQL migrations it holds (`sds_test_tpl_<hash>`), made once by the
 * first test process that needs it; `npm run test:pg` drops it at its start (its sweep), so each
 * run makes it afresh.
 */
function postgresStoreTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = new URL('../../src/store/migrations/postgresql/', import.meta.url).pathname;
    const hash = createHash('sha256');
    for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
    const name = `sds_test_tpl_${hash.digest('hex').slice(0, 12)}`;
    // Made under another name, then renamed: a process that sees `name` sees a whole store.
    const draft = await createPostgresDatabase();
    try {
      const exists = async () => {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: draft.config.url });
        await client.connect();
        try {
          return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
        } finally {
          await client.end();
        }
      };
      if (await exists()) return name;
      const home = tempDir();
      try {
        await (await openPostgresStore({ connectionString: draft.config.url!, max: 1 }, home, { migrate: true })).close();
      } finally {
        home.cleanup();
      }
      try {
        await draft.admin(`ALTER DATABASE "${draft.name}" RENAME TO "${name}"`);
        return name;
      } catch (err) {
        // Another test process made it first (42P04, duplicate_database): use theirs.
        if ((err as { code?: string }).code === '42P04') return name;
        throw err;
      }
    } finally {
      await draft.drop();
    }
  })();
  return template;
}

/**
 * Writes the home's config.json as `config`, keeping the store setting tempHome put there (a
 * test home on PostgreSQL names its database in it) unless `config` has one of its own. `mode`
 * applies when the file is new, as for writeFileSync.
 */
export function writeHomeConfig(home: HomePaths, config: Record<string, unknown> | string, mode?: number): void {
  const path = join(home.root, 'config.json');
  let text = typeof config === 'string' ? config : JSON.stringify(config);
  let store: unknown;
  try {
    store = (JSON.parse(readFileSync(path, 'utf8')) as { store?: unknown }).store;
  } catch {
    store = undefined;
  }
  if (store !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && !('store' in parsed)) {
      text = JSON.stringify({ ...parsed, store });
    }
  }
  writeFileSync(path, text, mode === undefined ? undefined : { mode });
}

/** A fresh home with its store open; `cleanup` closes the store and removes the home. */
export async function tempStore(kind: StoreKind = testStoreKind()): Promise<{ store: Store; home: HomePaths; cleanup(): Promise<void> }> {
  const home = await tempHome(kind);
  const store = await openStore(home);
  return {
    store,
    home,
    async cleanup() {
      await store.close();
      await home.cleanup();
    },
  };
}

/** Runs `query` (`?` placeholders) on the database of either store; the rows it returns. */
export async function storeSql(store: Store, query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (store instanceof PostgresStore) return (await store.pool.query(numbered(query), params)).rows;
  const stmt = sqliteDb(store).prepare(query);
  if (stmt.reader) return stmt.all(...params) as Record<string, unknown>[];
  stmt.run(...params);
  return [];
}

/** Opens the store of `home` (a server or CLI child may have it open too), runs `fn`, closes it. */
export async function withStore<T>(home: HomePaths, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(home);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The kind of an open store. */
export function storeKindOf(store: Store): StoreKind {
  return store instanceof PostgresStore ? 'postgresql' : 'sqlite';
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
