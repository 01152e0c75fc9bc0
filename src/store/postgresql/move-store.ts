/**
 * The two stores of a move (`sds store copy`, `sds store verify`): the SQLite store of a home,
 * opened exclusively for a copy or as one read snapshot for a comparison, and the PostgreSQL
 * store it goes to, filled in one transaction and compared table by table
 * (docs/decisions.md, "Moving a home to PostgreSQL").
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import pg from 'pg';
import type { ClientBase } from 'pg';
import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import { requireCurrentSchema } from '../migrate.js';
import { requireHome } from '../require-home.js';
import type { FileArea } from '../file-store-contract.js';
import { putFileInTransaction, storedFileHashes } from '../file-store/postgresql/file-store.js';
import {
  clearNewStoreRows,
  POSTGRES_ONLY_TABLES,
  copyTable,
  hasAnyTable,
  lockTables,
  pgTableSum,
  requireSameTables,
  setSequences,
  setTriggers,
  sqliteTableSum,
  storeTables,
  tablesWithRows,
  type CopyProgress,
  type CopyTable,
  type TableSum,
} from './copy-from-sqlite.js';
import { migratePostgres, postgresVersion } from './migrate.js';
import { ClientRunner } from './pg-runner.js';
import { pgStorePoolConfig } from './pg-store.js';
import { unavailable } from './open-postgres-store.js';

export type { CopyProgress, TableSum } from './copy-from-sqlite.js';

/** A file of the PostgreSQL store's file store, as `sds store verify` compares it. */
export interface StoredFile {
  area: FileArea;
  name: string;
  sha256: string;
  size: number;
}

/** One table compared: its count and checksum on each store. */
export interface TableComparison {
  table: string;
  sqlite_rows: number;
  postgresql_rows: number;
  sqlite_checksum: string;
  postgresql_checksum: string;
  equal: boolean;
}

/** The SQLite store of a home, opened for a move. */
export interface SqliteSource {
  /** Its schema version (the latest this sds knows: an older store is refused). */
  version: number;
  close(): void;
}

interface OpenSource extends SqliteSource {
  db: Db;
}

/** How long the exclusive lock of a copy waits for a writer finishing its transaction. */
const LOCK_WAIT_MS = 2000;

/**
 * Opens the SQLite store of `home` for a copy, holding it exclusively until `close()`: no other
 * process can read or write it meanwhile, and one that has it open (`sds serve`, a running
 * command) makes this HOME_IN_USE (SQLite's exclusive locking mode takes the file's exclusive
 * lock, which any other open WAL connection holds a shared lock against). A store that needs
 * migrating is STORE_NEEDS_MIGRATION; one of a newer sds, STORE_TOO_NEW. Nothing is written.
 */
export function openSqliteExclusive(home: HomePaths): SqliteSource {
  requireHome(home);
  const db = new Database(home.db, { fileMustExist: true, timeout: LOCK_WAIT_MS });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY') !== true) throw err;
      throw new AppError(
        'HOME_IN_USE',
        `the store of the home ${home.root} is open in another process (sds serve, a scheduled run, another command): stop it, then copy`,
        { path: home.root },
        { cause: err },
      );
    }
    const version = requireCurrentSchema(db, home.root).version;
    return { db, version, close: () => db.close() } as OpenSource;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Opens the SQLite store of `home` read only, as one snapshot of the store until `close()` (for
 * a comparison; other readers are not held up). HOME_NOT_FOUND when there is none.
 */
export function openSqliteSnapshot(home: HomePaths): SqliteSource {
  requireHome(home);
  const db = new Database(home.db, { fileMustExist: true, readonly: true, timeout: 10_000 });
  try {
    db.exec('BEGIN');
    const version = Number(db.pragma('user_version', { simple: true }));
    // The first read starts the snapshot that every later read of the transaction shares.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return { db, version, close: () => db.close() } as OpenSource;
  } catch (err) {
    db.close();
    throw err;
  }
}

async function connect(url: string, shown: string): Promise<pg.Client> {
  const client = new pg.Client(pgStorePoolConfig({ connectionString: url }));
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw unavailable(err, shown);
  }
  return client;
}

function notEmpty(shown: string, what: string, tables: string[]): AppError {
  return new AppError(
    'STORE_NOT_EMPTY',
    `the PostgreSQL database ${shown} ${what}; a home is copied only into an empty database (or a store sds init made and nothing wrote)`,
    { store: shown, tables },
  );
}

/**
 * Where the files step of a copy writes: the PostgreSQL store's file store, through the copy's
 * own transaction (see copyStore).
 */
export interface FileSink {
  /** Writes `content` under `name` of `area` with its modification time; its size and hashes, computed as it streamed. */
  put(
    area: FileArea,
    name: string,
    content: AsyncIterable<Buffer | string>,
    opts: { mtimeMs: number },
  ): Promise<{ size: number; md5: string; sha256: string }>;
}

/** The metadata of the SQLite store that describes files (read from the copied store, in its snapshot). */
export interface FileMetadata {
  /** `files`: the sha256 of each media and synced file that has a row. */
  media: Map<string, string>;
  /** `app_packages`: what a deployment or an import kept of each package, by package name. */
  apps: Map<string, { zipSize: number; zipMd5: string; buildTime: string }>;
}

/** The process ids watching the schedule runs still `running` in the SQLite store of `source`. */
export function runningRunnersOf(source: SqliteSource): number[] {
  const { db } = source as OpenSource;
  return (
    db.prepare("SELECT runner_pid AS pid FROM schedule_runs WHERE outcome = 'running' AND runner_pid IS NOT NULL").all() as {
      pid: number;
    }[]
  ).map((r) => r.pid);
}

/** The file metadata of the SQLite store of `source`. */
export function fileMetadataOf(source: SqliteSource): FileMetadata {
  const { db } = source as OpenSource;
  const media = new Map<string, string>();
  for (const r of db.prepare('SELECT name, sha256 FROM files').all() as { name: string; sha256: string }[]) media.set(r.name, r.sha256);
  const apps = new Map<string, { zipSize: number; zipMd5: string; buildTime: string }>();
  const rows = db.prepare('SELECT name, zip_size, zip_md5, build_time FROM app_packages').all() as {
    name: string;
    zip_size: number;
    zip_md5: string;
    build_time: string;
  }[];
  for (const r of rows) apps.set(r.name, { zipSize: Number(r.zip_size), zipMd5: r.zip_md5, buildTime: r.build_time });
  return { media, apps };
}

/** How to copy. */
export interface CopyStoreOptions<F> {
  onProgress?: (p: CopyProgress) => void;
  /** Stops the copy between chunks of rows: the transaction rolls back and the signal's reason is thrown. */
  signal?: AbortSignal;
  /**
   * The files step: run in the copy's transaction once every table is copied, before the
   * comparison; what it writes through the sink commits or rolls back with the rows, and what it
   * throws rolls everything back.
   */
  files?: (sink: FileSink) => Promise<F>;
}

/** What a copy did. */
export interface CopyStoreResult<F> {
  schema_version: number;
  /** Migrations applied to the PostgreSQL store to bring it to the SQLite store's version. */
  migrations_applied: string[];
  tables: TableComparison[];
  /** What the files step returned. */
  files: F | undefined;
}

/**
 * Copies the SQLite store of `source` (from openSqliteExclusive) into the PostgreSQL store at
 * `url`, which must be empty: a database without tables, or a store `sds init` made that holds
 * no row (else STORE_NOT_EMPTY, and nothing is written). The PostgreSQL store is first migrated
 * to the SQLite store's version; then, in one transaction holding every table: the triggers of
 * the schema disabled (`DISABLE TRIGGER USER`, which the database owner may do; the foreign keys
 * still check every row), the tables copied parents first, the identity sequences set past the
 * copied numbers, the triggers enabled again, the files step run (`opts.files`, writing the
 * home's files into the file store through this transaction), and every table's count and
 * checksum compared with SQLite's. A difference rolls everything back (STORE_COPY_DIFFERS); else it commits.
 */
export async function copyStore<F>(
  source: SqliteSource,
  url: string,
  shown: string,
  opts: CopyStoreOptions<F> = {},
): Promise<CopyStoreResult<F>> {
  const { db } = source as OpenSource;
  const client = await connect(url, shown);
  try {
    if ((await postgresVersion(client)) === 0 && (await hasAnyTable(client))) {
      throw notEmpty(shown, 'holds tables but no sds store', []);
    }
    const migration = await migratePostgres(client);
    if (migration.to !== source.version) {
      throw new AppError(
        'STORE_COPY_DIFFERS',
        `the PostgreSQL store ${shown} is at schema version ${migration.to} and the SQLite store at ${source.version}: copy with the sds that has migrations for both up to the same version`,
        { store: shown, tables: [] },
      );
    }
    const all = await storeTables(client);
    const tables = all.filter((t) => !POSTGRES_ONLY_TABLES.has(t.name));
    requireSameTables(db, tables);
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      await lockTables(client, all);
      const filled = await tablesWithRows(client, all);
      if (filled.length > 0) throw notEmpty(shown, `holds rows in ${filled.join(', ')}`, filled);
      await clearNewStoreRows(client);
      await setTriggers(client, tables, false);
      const copied = new Map<string, TableSum>();
      for (const t of tables) {
        opts.signal?.throwIfAborted();
        copied.set(t.name, await copyTable(db, client, t, opts.onProgress, opts.signal));
      }
      opts.signal?.throwIfAborted();
      await setSequences(db, client, tables);
      await setTriggers(client, tables, true);
      const runner = new ClientRunner(client);
      const files = await opts.files?.({
        put: (area, name, content, o) => putFileInTransaction(runner, area, name, content, { file: `${area}/${name}`, mtimeMs: o.mtimeMs }),
      });
      opts.signal?.throwIfAborted();
      const compared = await compare(tables, (t) => copied.get(t.name)!, client);
      const differing = compared.filter((c) => !c.equal);
      if (differing.length > 0) throw differs(differing, 'after the copy (nothing was kept)');
      await client.query('COMMIT');
      return { schema_version: source.version, migrations_applied: migration.applied, tables: compared, files };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function compare(tables: CopyTable[], sqlite: (t: CopyTable) => TableSum, client: ClientBase): Promise<TableComparison[]> {
  const out: TableComparison[] = [];
  for (const t of tables) {
    const a = sqlite(t);
    const b = await pgTableSum(client, t);
    out.push({
      table: t.name,
      sqlite_rows: a.rows,
      postgresql_rows: b.rows,
      sqlite_checksum: a.checksum,
      postgresql_checksum: b.checksum,
      equal: a.rows === b.rows && a.checksum === b.checksum,
    });
  }
  return out;
}

/** STORE_COPY_DIFFERS listing each table that differs, with its counts and checksums. */
export function differs(tables: TableComparison[], when: string): AppError {
  const lines = tables.map(
    (c) =>
      `${c.table}: ${c.sqlite_rows} rows (checksum ${c.sqlite_checksum}) in SQLite, ${c.postgresql_rows} rows (checksum ${c.postgresql_checksum}) in PostgreSQL`,
  );
  return new AppError('STORE_COPY_DIFFERS', `the stores differ ${when}: ${lines.join('; ')}`, {
    tables: tables.map((c) => c.table),
    differences: tables,
  });
}

/**
 * Compares the SQLite store of `source` (from openSqliteSnapshot) with the PostgreSQL store at
 * `url`, table by table: row counts and checksums computed alike on both, the PostgreSQL side
 * read in one REPEATABLE READ snapshot. Compares the tables of the PostgreSQL store, which must
 * be at the SQLite store's schema version (else STORE_COPY_DIFFERS); returns too every file of
 * its file store (area, name, sha256), read in the same snapshot, for the caller to compare with
 * the home's folders.
 */
export async function compareStores(
  source: SqliteSource,
  url: string,
  shown: string,
): Promise<{ tables: TableComparison[]; files: StoredFile[] }> {
  const { db } = source as OpenSource;
  const client = await connect(url, shown);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const version = await postgresVersion(client);
    if (version !== source.version) {
      throw new AppError(
        'STORE_COPY_DIFFERS',
        `the PostgreSQL store ${shown} is at schema version ${version} and the SQLite store at ${source.version}`,
        { store: shown, tables: [] },
      );
    }
    const tables = (await storeTables(client)).filter((t) => !POSTGRES_ONLY_TABLES.has(t.name));
    requireSameTables(db, tables);
    const compared = await compare(tables, (t) => sqliteTableSum(db, t), client);
    const files = await storedFileHashes(new ClientRunner(client));
    await client.query('COMMIT');
    return { tables: compared, files };
  } finally {
    await client.end().catch(() => undefined);
  }
}
