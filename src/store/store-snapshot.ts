import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { currentVersion, loadMigrations } from './migrate.js';

/** How long a snapshot waits for a lock held by another process (the store's own busy timeout). */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Writes a consistent copy of the store at `dbPath` into the new file `out` with `VACUUM INTO`
 * on a read-only connection: one read transaction, so one snapshot of the store as committed when
 * it began, while other processes keep writing (docs/backup.md#consistency). Never migrates and
 * never writes to the source, so it works on a store of an older schema. The copy is not yet
 * durable (SQLite does not fsync it); the caller fsyncs it once it is complete.
 */
export function snapshotStoreInto(dbPath: string, out: string): void {
  let db: Db;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot open the store ${dbPath}: ${(err as Error).message}`, { file: dbPath }, { cause: err });
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.prepare('VACUUM INTO ?').run(out);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      'IO_ERROR',
      `cannot copy the store ${dbPath} to ${out}: ${(err as Error).message}`,
      { file: dbPath },
      { cause: err },
    );
  } finally {
    db.close();
  }
}

/** A media file as the snapshot's `files` table describes it. */
export interface SnapshotFileRow {
  name: string;
  size: number;
  sha256: string;
}

/**
 * The copy of a store made by snapshotStoreInto, opened to read what it holds and to make its
 * `files` rows describe the media files copied beside it (docs/backup.md#consistency). It is
 * nobody's live store: no migration runs and nothing else opens it.
 */
export class StoreCopy {
  private constructor(private readonly db: Db) {}

  /** Opens the copy at `path` for writing. */
  static open(path: string): StoreCopy {
    return new StoreCopy(new Database(path, { fileMustExist: true }));
  }

  /** The copy's schema version (SQLite's user_version). */
  schemaVersion(): number {
    return currentVersion(this.db);
  }

  /** The rows of the `files` table (media metadata); none when the schema has no such table. */
  fileRows(): SnapshotFileRow[] {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'files'").get();
    if (!has) return [];
    return this.db.prepare('SELECT name, size, sha256 FROM files ORDER BY name').all() as SnapshotFileRow[];
  }

  /**
   * The last audit record the copy holds (docs/supervision.md#retention): undefined when its
   * schema has no audit trail yet, 0 when the trail is empty.
   */
  auditHeadSeq(): number | undefined {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_log'").get();
    if (!has) return undefined;
    return (this.db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM audit_log').get() as { seq: number }).seq;
  }

  /**
   * Applies the differences between the snapshot's rows and the files actually copied, in one
   * transaction: a row whose file changed gets the copied size and sha256, a row whose file is
   * gone is removed.
   */
  reconcileFiles(changed: SnapshotFileRow[], gone: string[]): void {
    const update = this.db.prepare('UPDATE files SET size = ?, sha256 = ? WHERE name = ?');
    const remove = this.db.prepare('DELETE FROM files WHERE name = ?');
    this.db.transaction(() => {
      for (const f of changed) update.run(f.size, f.sha256, f.name);
      for (const name of gone) remove.run(name);
    })();
  }

  /**
   * Closes the copy as one self-contained file: the rollback journal instead of WAL, so no `-wal`
   * or `-shm` file belongs with it and a read-only open (restore's checks) creates none. The
   * store switches itself back to WAL when a home opens it.
   */
  close(): void {
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
  }
}

/** What checkStoreFile found in a store file. */
export interface StoreFileCheck {
  /** The rows of `PRAGMA integrity_check`: `['ok']` when intact. */
  integrity: string[];
  /** How many rows `PRAGMA foreign_key_check` returned (0 when every reference holds). */
  foreignKeyViolations: number;
  schemaVersion: number;
  /** The newest schema version this sds knows. */
  latestVersion: number;
}

/**
 * Checks a store file without changing it (read-only, no migration): `PRAGMA integrity_check`,
 * `PRAGMA foreign_key_check` and its schema version. A file SQLite cannot read at all reports that
 * as its integrity result.
 */
export function checkStoreFile(path: string): StoreFileCheck {
  const latestVersion = loadMigrations().at(-1)?.version ?? 0;
  let db: Db | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    const foreignKeyViolations = (db.pragma('foreign_key_check') as unknown[]).length;
    return { integrity, foreignKeyViolations, schemaVersion: currentVersion(db), latestVersion };
  } catch (err) {
    return { integrity: [(err as Error).message], foreignKeyViolations: 0, schemaVersion: 0, latestVersion };
  } finally {
    db?.close();
  }
}
