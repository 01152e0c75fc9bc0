/**
 * SQLite session: one better-sqlite3 connection to the target file; bulk loads run one prepared
 * INSERT per row, in one transaction per batch (or in the caller's transaction).
 */
import { closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { AppError } from '../../../shared/errors.js';
import { dirname, resolve } from 'node:path';
import { fsyncDirectory, fsyncFileAsync } from '../../../shared/durable-file.js';
import type { Database } from 'better-sqlite3';
import type { CellValue, ColumnType, TablePlan } from '../../plan-model.js';
import type { Dialect, RowSource, TargetConfig, TargetSession } from '../dialect.js';
import { cjsExports, loadDriver } from '../driver-loader.js';
import { BaseSession, type CatalogTable } from '../session-base.js';
import { resolveTarget, type ResolvedTarget } from '../target-config.js';
import { insertStatement, paramValue, rowEncoder } from './encode.js';
import { connectError, queryError } from './errors.js';
import {
  JOURNAL_MODE_PRAGMA,
  LIST_TABLES_SQL,
  MAIN_FILE_SQL,
  NO_WAL_PRAGMAS,
  ROWS_PER_TRANSACTION,
  SESSION_PRAGMAS,
  style,
  TABLE_SIZES_SQL,
  VERSION_SQL,
  lastCompletedJobSql,
} from './queries.js';

class SqliteSession extends BaseSession {
  private directorySynced = false;

  /** `mainFile`: the database file as SQLite names it; `wal`: whether it runs in WAL mode (commits not fsynced). */
  constructor(
    dialect: Dialect,
    target: ResolvedTarget,
    private readonly db: Database,
    private readonly mainFile: string,
    private readonly wal: boolean,
  ) {
    super(dialect, target, style);
  }

  /**
   * Fsyncs the WAL file: every frame committed by any connection before the call is then on
   * disk (the frames not yet checkpointed are there; those checkpointed were synced into the
   * database file by the checkpoint). The first call also fsyncs the folder, which names a
   * target file or WAL this run may have created. Without WAL mode every commit was already fsynced (NO_WAL_PRAGMAS).
   */
  override async makeDurable(): Promise<void> {
    if (!this.wal) return;
    // While this connection is open the WAL exists (SQLite removes it when the last connection
    // closes): a missing one is an error, never a reason to skip the fsync.
    await fsyncFileAsync(`${this.mainFile}-wal`);
    if (!this.directorySynced) {
      fsyncDirectory(dirname(this.mainFile));
      this.directorySynced = true;
    }
  }

  /** Runs better-sqlite3 calls, an error of SQLite becoming the target's (errors.ts). */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw queryError(err, this.target);
    }
  }

  protected async run(sql: string, params: unknown[] = []): Promise<number> {
    return this.guard(() => this.db.prepare(sql).run(...params).changes);
  }

  protected async rows(sql: string, params: unknown[] = []): Promise<unknown[][]> {
    // safeIntegers: integers beyond 2^53 come back exact (as bigint) instead of rounded.
    return this.guard(
      () =>
        this.db
          .prepare(sql)
          .raw(true)
          .safeIntegers(true)
          .all(...params) as unknown[][],
    );
  }

  protected async catalogTables(): Promise<CatalogTable[]> {
    const sizes = new Map<string, number>();
    try {
      for (const [name, bytes] of await this.rows(TABLE_SIZES_SQL)) sizes.set(String(name), Number(bytes));
    } catch {
      // A SQLite built without SQLITE_ENABLE_DBSTAT_VTAB: sizes unknown (0).
    }
    // SQLite does not record when a table was created.
    return (await this.rows(LIST_TABLES_SQL)).map(([name]) => ({
      name: String(name),
      sizeBytes: sizes.get(String(name)) ?? 0,
      createdAt: null,
    }));
  }

  protected lastCompletedJobSql(jobsTable: string): string {
    return lastCompletedJobSql(jobsTable);
  }

  protected bindValue(type: ColumnType, value: CellValue): unknown {
    return paramValue(type, value);
  }

  protected override async begin(): Promise<void> {
    // IMMEDIATE takes the write lock now, so two writers wait (busy timeout) instead of deadlocking.
    this.guard(() => this.db.exec('BEGIN IMMEDIATE'));
  }

  protected override async commit(): Promise<void> {
    this.guard(() => this.db.exec('COMMIT'));
  }

  protected override async rollback(): Promise<void> {
    if (this.db.inTransaction) this.guard(() => this.db.exec('ROLLBACK'));
  }

  async serverVersion(): Promise<string> {
    return String((await this.rows(VERSION_SQL))[0]?.[0] ?? '');
  }

  /** A local file: no network, no TLS. */
  async tlsVersion(): Promise<null> {
    return null;
  }

  protected override async dropExisting(names: string[]): Promise<void> {
    // Checked at commit, foreign keys between the dropped tables cannot fail the drop whatever the order.
    await this.transaction(async () => {
      this.guard(() => this.db.pragma('defer_foreign_keys = ON'));
      for (const n of names) this.guard(() => this.db.exec(this.dialect.dropTableSql(n)));
    });
  }

  async bulkLoad(table: TablePlan, rows: RowSource): Promise<number> {
    const insert = this.guard(() => this.db.prepare(insertStatement(table)));
    const encode = rowEncoder(table);
    const own = !this.inTransaction;
    let count = 0;
    let inBatch = 0;
    if (own) this.db.exec('BEGIN IMMEDIATE');
    try {
      for await (const row of rows) {
        insert.run(encode(row));
        count++;
        if (own && ++inBatch === ROWS_PER_TRANSACTION) {
          this.db.exec('COMMIT');
          this.db.exec('BEGIN IMMEDIATE');
          inBatch = 0;
        }
      }
      if (own) this.db.exec('COMMIT');
    } catch (err) {
      if (own && this.db.inTransaction) this.db.exec('ROLLBACK');
      throw queryError(err, this.target);
    }
    return count;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/**
 * How long a statement waits for another writer's lock: 10 s, or `?busy_timeout=<ms>` in the
 * target URL (`sqlite:///srv/t.sqlite?busy_timeout=60000`) where other programs write the file too.
 */
function busyTimeoutMs(param: string | undefined): number {
  return param !== undefined && /^\d+$/.test(param) ? Number(param) : 10_000;
}

/**
 * A session that changes nothing on disk (`target test`): an existing file is opened read-only
 * and keeps its journal mode; for a file not made yet, its folder must exist (the first
 * breakout creates the file there) and the session runs on an in-memory database.
 */
function probe(dialect: Dialect, target: ResolvedTarget, file: string, Sqlite: typeof import('better-sqlite3')): TargetSession {
  if (!existsSync(dirname(file))) {
    throw new AppError(
      'TARGET_FILE_DIR_MISSING',
      `the folder ${dirname(file)} of the SQLite target file does not exist (nothing was created)`,
      { file },
    );
  }
  const exists = existsSync(file);
  let db: Database;
  try {
    db = exists
      ? new Sqlite(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs(target.params.busy_timeout) })
      : new Sqlite(':memory:');
  } catch (err) {
    throw connectError(err, target);
  }
  return new SqliteSession(dialect, { ...target, database: file, label: file }, db, file, false);
}

/**
 * Creates a missing target file 0600 whatever the umask, as SQLite would make it 0644 less the
 * umask: it holds every case (docs/architecture.md#permissions-of-a-home). SQLite gives its -wal
 * and -shm the same mode. A file that exists keeps its mode: the user chose it.
 */
function createPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** Opens (creating if needed) a SQLite target file (better-sqlite3 is loaded here, on first use). */
export async function connect(dialect: Dialect, config: TargetConfig): Promise<TargetSession> {
  const target = resolveTarget(config, dialect, { user: '', database: '' });
  const file = resolve(target.file);
  const Sqlite = cjsExports(await loadDriver('better-sqlite3', () => import('better-sqlite3')));
  let db: Database;
  let wal: boolean;
  let mainFile: string;
  if (config.probe) return probe(dialect, target, file, Sqlite);
  try {
    if (!config.existingOnly) createPrivateFile(file);
    db = new Sqlite(file, { timeout: busyTimeoutMs(target.params.busy_timeout), fileMustExist: config.existingOnly === true });
    // The mode the file really has: SQLite answers the old mode when it cannot switch to WAL.
    wal = String(db.pragma(JOURNAL_MODE_PRAGMA, { simple: true })).toLowerCase() === 'wal';
    for (const p of wal ? SESSION_PRAGMAS : NO_WAL_PRAGMAS) db.pragma(p);
    mainFile = String(db.prepare(MAIN_FILE_SQL).pluck().get() ?? '') || file;
  } catch (err) {
    throw connectError(err, target);
  }
  return new SqliteSession(dialect, { ...target, database: file, label: file }, db, mainFile, wal);
}
