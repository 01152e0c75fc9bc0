import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { fsyncDirectory } from '../shared/durable-file.js';
import type { HomePaths } from '../shared/home.js';
import { currentVersion, migrate, requireCurrentSchema, schemaStatus, type MigrateResult, type SchemaStatus } from './migrate.js';
import { requireHome, requireHomeFolder } from './require-home.js';
import { storeSetting } from './store-setting.js';
import { openPostgresStore, postgresStatusAt } from './postgresql/open-postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store-contract.js';

export type { Store, StoreScope } from './store-contract.js';
export { SqliteStore } from './sqlite-store.js';

/**
 * Creates the home directory layout if needed (idempotent). Folders are made 0700: only the
 * service account may read a home (docs/architecture.md#permissions-of-a-home); existing folders
 * keep their mode.
 */
function ensureHomeLayout(home: HomePaths): void {
  for (const dir of [home.root, home.media, home.breakoutLogs, home.locks, home.targets]) {
    try {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (err) {
      // A file in the way, a parent not ours to write (a home under /srv): say which folder.
      throw new AppError(
        'IO_ERROR',
        `cannot create the folder ${dir} of the home ${home.root}: ${(err as Error).message}`,
        { file: dir },
        { cause: err },
      );
    }
  }
}

/** Modes of what a home holds, whatever the umask (docs/architecture.md#permissions-of-a-home). */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes a new home private before anything is written in it: the root 0700 (also a directory
 * that existed empty: it becomes a home now) and an empty store file 0600, made here because
 * SQLite would create it 0644 less the umask. SQLite gives the -wal and -shm files the mode of
 * the store file.
 */
function createPrivateStore(home: HomePaths): void {
  try {
    chmodSync(home.root, PRIVATE_DIR_MODE);
    let fd: number;
    try {
      fd = openSync(home.db, 'wx', PRIVATE_FILE_MODE);
    } catch (err) {
      // Another `sds init` made it a moment ago: it is that one's to set up, and still empty
      // here (schema version 0), which openStore migrates like a new store.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
      throw err;
    }
    try {
      // The umask may have taken bits away from 0600 (a umask of 0200): the owner needs them all.
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot create the store ${home.db}: ${(err as Error).message}`, { file: home.db }, { cause: err });
  }
}

/**
 * Makes a new home's directory entries durable (the store file, its WAL and the folders of the
 * layout): SQLite fsyncs its files, not the directories naming them, so right after `sds init` a
 * power cut could otherwise leave a home without its store.
 */
function syncNewHome(home: HomePaths): void {
  for (const dir of [home.root, dirname(home.media), home.media, dirname(home.breakoutLogs), home.breakoutLogs, home.locks, home.targets]) {
    fsyncDirectory(dir);
  }
  try {
    fsyncDirectory(dirname(home.root));
  } catch {
    // The parent may not be ours to open (a home under /srv): its entry is then as durable as the
    // file system makes it on its own.
  }
}

/**
 * The store's journal settings. `synchronous = FULL` fsyncs the WAL at every commit, so a write
 * that was acknowledged (a 2xx answer, a CLI exit 0) survives an OS crash or a power cut; with
 * NORMAL a commit reached the disk only at the next checkpoint (docs/durability.md).
 */
const BUSY_TIMEOUT = 'busy_timeout = 10000';
const STORE_PRAGMAS = [BUSY_TIMEOUT, 'journal_mode = WAL', 'foreign_keys = ON', 'synchronous = FULL'] as const;

/** How to open a store. */
export interface OpenStoreOptions {
  readonly?: boolean;
  /** Make the home if it has no store yet (`sds init`, `sds quickstart`); a new store gets every migration. */
  create?: boolean;
  /** Apply pending migrations (`sds migrate`); without it a store that needs them is refused. */
  migrate?: boolean;
}

function openDatabase(home: HomePaths, readonly: boolean): Db {
  try {
    return new Database(home.db, { readonly, fileMustExist: true });
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot open the store ${home.db}: ${(err as Error).message}`, { file: home.db }, { cause: err });
  }
}

/**
 * Opens the store of a home. A missing home is HOME_NOT_FOUND and nothing is created (only
 * `sds init` and `sds quickstart`, through `{ create: true }`, make a home, with every
 * migration). Pending migrations are applied only with `{ migrate: true }` (`sds migrate`):
 * otherwise a store that needs them is refused with STORE_NEEDS_MIGRATION before anything is
 * written (docs/upgrading.md#why-commands-refuse-an-old-store), and one written by a newer sds
 * with STORE_TOO_NEW. WAL lets readers (the HTTP server, status queries) run while an import or
 * a job writes; the busy timeout makes concurrent CLI processes wait for each other instead of
 * failing at once. Every commit is fsynced before it returns (STORE_PRAGMAS).
 */
export async function openStore(home: HomePaths, opts: OpenStoreOptions = {}): Promise<Store> {
  const setting = storeSetting(home);
  if (setting.kind === 'postgresql') {
    // The home's folder keeps config.json, logs and media; the store itself is the database.
    if (opts.create === true) ensureHomeLayout(home);
    else requireHomeFolder(home);
    // A read-only store refuses writes on PostgreSQL too: every transaction of its connections is
    // read-only, so a write fails (25006) as SQLite's read-only connection fails one.
    const readonly = opts.readonly === true && opts.create !== true && opts.migrate !== true;
    // Migrations and a new store's first schema may run long statements: no query timeout for them.
    const migrating = opts.create === true || opts.migrate === true;
    const connection = {
      connectionString: setting.url,
      max: setting.poolSize,
      connectionTimeoutMillis: setting.connectTimeoutMs,
      ...(migrating || setting.queryTimeoutMs === 0 ? {} : { query_timeout: setting.queryTimeoutMs }),
    };
    return openPostgresStore(readonly ? { ...connection, options: '-c default_transaction_read_only=on' } : connection, home, {
      migrate: migrating,
      shownUrl: setting.shownUrl,
    });
  }
  const readonly = opts.readonly ?? false;
  const creating = opts.create === true && !readonly && !existsSync(home.db);
  if (creating) {
    ensureHomeLayout(home);
    createPrivateStore(home);
  } else requireHome(home);
  const db = openDatabase(home, readonly);
  try {
    db.pragma(BUSY_TIMEOUT);
    // A store still at version 0 is empty: made by an init that stopped (or is running) before
    // its first migration; creating it again is finishing that init, not an upgrade.
    const fresh = creating || (opts.create === true && !readonly && currentVersion(db) === 0);
    const current = fresh || opts.migrate === true ? undefined : requireCurrentSchema(db, home.root);
    // A home made by an older sds may lack a folder of the layout: a home's own folders are ours to add.
    if (!readonly && !creating) ensureHomeLayout(home);
    for (const p of STORE_PRAGMAS) db.pragma(p);
    // SQLite's default page cache is 2 MB, smaller than the case indexes an import updates at
    // random. 16 MB keeps their upper levels hot; a miss is a read from the OS file cache, and a
    // larger cache only adds to the resident memory of every process (measured in bench/).
    db.pragma('cache_size = -16384');
    // A new home is migrated in one transaction, so that a second `sds init` racing this one sees
    // either an empty store (version 0: it waits for the write lock, then finds nothing to do) or
    // a complete one, never one half-way that it would have to refuse as needing `sds migrate`.
    const migration = current ? unchanged(current) : fresh ? db.transaction(() => migrate(db)).immediate() : migrate(db);
    if (creating) syncNewHome(home);
    return new SqliteStore(db, home, migration);
  } catch (err) {
    db.close();
    throw err;
  }
}

const unchanged = (s: SchemaStatus): MigrateResult => ({ from: s.version, to: s.version, applied: [] });

/**
 * The schema status of a home's store (its version, the latest this sds knows, each migration
 * applied or pending), read through a read-only connection: nothing is applied or locked for
 * writing (`sds migrate --status`). HOME_NOT_FOUND when there is no home.
 */
export async function readSchemaStatus(home: HomePaths): Promise<SchemaStatus> {
  const setting = storeSetting(home);
  if (setting.kind === 'postgresql') {
    requireHomeFolder(home);
    return postgresStatusAt(setting.url, setting.shownUrl);
  }
  requireHome(home);
  const db = openDatabase(home, true);
  try {
    db.pragma(BUSY_TIMEOUT);
    return schemaStatus(db);
  } finally {
    db.close();
  }
}
