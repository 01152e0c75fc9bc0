/**
 * The PostgreSQL file store (docs/architecture.md#the-file-store-contract; docs/decisions.md,
 * "Files in the PostgreSQL store (issue 28)"): the bytes of a store's files in its database, so
 * every node of the store sees them. A blob is content-addressed (its sha256, unique) and held in
 * chunks of 1 MiB (`file_blob_chunks`); `file_entries` says which blob each name of an area holds.
 * An upload writes its chunks first, each committed alone (blob-writer.ts); one short transaction
 * then takes the name's advisory lock, checks, points the name at the blob (or at an equal blob
 * already stored), marks the version it replaced as orphaned when no other name holds it, and runs
 * the caller's metadata writes: the name, its bytes and its metadata change together or not at all.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../../shared/errors.js';
import type {
  CommitOptions,
  FileArea,
  FileEntry,
  FileSnapshot,
  FileStore,
  Present,
  StagedFile,
  StageOptions,
  StaleUploadsReport,
  StaleUploadsRule,
} from '../../file-store-contract.js';
import type { StoreScope } from '../../store-contract.js';
import type { PgRunner } from '../../postgresql/pg-runner.js';
import { dropBlob, WRITER, writeBlob } from './blob-writer.js';
import { blobSnapshot, type BlobRow } from './file-snapshot.js';

/** A staged version of the PostgreSQL store: the contract's, and its unnamed blob. */
type PgStaged = StagedFile & { blobId: number };

/** The first key of the two-key advisory lock on one name of an area: "sdfi" as 32 bits. */
const FILE_NAME_LOCK_CLASS = 1935959657;

/**
 * The key of the advisory lock that serialises the end of every commit and removal (deduplication
 * by sha256, orphaning, the sweep): "sdsblobs" as 64 bits. Taken after the name's lock, always in
 * that order, and held for a few statements.
 */
const FILE_BLOB_LOCK_KEY = '8314897678596006515';

/**
 * How long a version no name holds any more is kept before a sweep deletes it: a download that
 * opened it before it was replaced has this long to finish reading it whole.
 */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** Orphans deleted per commit, so that no commit pays for a large backlog (serve's start sweeps the rest). */
const ORPHANS_PER_COMMIT = 16;

/** The names that are folders of `name` (`a` and `a/b` of `a/b/c`). */
function foldersOf(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** The range of names under a folder: `folder/` up to `folder0` (`0` follows `/`), everything for ''. */
function rangeUnder(folder: string): [string, string | null] {
  return folder === '' ? ['', null] : [`${folder}/`, `${folder}0`];
}

const UNDER = 'area = $1 AND name >= $2 AND ($3::text IS NULL OR name < $3)';

/**
 * Takes the name's lock, after a shared lock on each of its folders from the top down: writers of
 * `a` and of `a/b` then take turns (a local folder cannot hold both a file `a` and a folder `a`,
 * so neither may the database), while writers of `a/b` and `a/c` do not wait for each other.
 * Always taken in that order, so two writers never wait for each other in a circle.
 */
async function lockName(db: PgRunner, area: FileArea, name: string): Promise<void> {
  for (const folder of foldersOf(name))
    await db.run('SELECT pg_advisory_xact_lock_shared($1, hashtext($2))', [FILE_NAME_LOCK_CLASS, `${area}/${folder}`]);
  await db.run('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FILE_NAME_LOCK_CLASS, `${area}/${name}`]);
}

/** What is under a name now; PATH_INVALID when one of its folders is a file. */
async function presentOf(db: PgRunner, area: FileArea, name: string, file: string): Promise<Present> {
  const hits = await db.rows<{ name: string }>('SELECT name FROM file_entries WHERE area = $1 AND name = ANY($2::text[])', [
    area,
    [name, ...foldersOf(name)],
  ]);
  if (hits.some((h) => h.name !== name)) throw new AppError('PATH_INVALID', `a folder of ${file} is a file`, { file });
  if (hits.length > 0) return 'file';
  const under = await db.row(`SELECT 1 AS one FROM file_entries WHERE ${UNDER} LIMIT 1`, [area, ...rangeUnder(name)]);
  return under ? 'directory' : undefined;
}

/**
 * Gives a blob just written its hashes, or, content-addressed, uses the blob already stored with
 * the same sha256 (revived if it was orphaned) and drops the new copy; the id of the blob to name.
 */
async function settleBlob(
  db: PgRunner,
  blob: { id: number; sha256: string; md5: string; size: number; head: Buffer },
  now: number,
): Promise<number> {
  const same = await db.row<{ id: number }>('UPDATE file_blobs SET orphaned_ms = NULL WHERE sha256 = $1 RETURNING id', [blob.sha256]);
  if (same) {
    await dropBlob(db, blob.id);
    return same.id;
  }
  await db.run('UPDATE file_blobs SET sha256 = $2, md5 = $3, size = $4, head = $5, touched_ms = $6 WHERE id = $1', [
    blob.id,
    blob.sha256,
    blob.md5,
    blob.size,
    blob.head,
    now,
  ]);
  return blob.id;
}

/** Marks a blob orphaned when no name holds it any more (the sweep deletes it after the grace). */
async function orphanIfUnused(db: PgRunner, blobId: number, now: number): Promise<void> {
  await db.run(
    `UPDATE file_blobs SET orphaned_ms = $2
      WHERE id = $1 AND orphaned_ms IS NULL AND NOT EXISTS (SELECT 1 FROM file_entries WHERE blob_id = $1)`,
    [blobId, now],
  );
}

/** Deletes up to `limit` blobs orphaned at or before `cutoff`, with their chunks; their ids. */
async function sweepOrphans(db: PgRunner, cutoff: number, limit: number | null): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(
    `DELETE FROM file_blobs WHERE id IN (
       SELECT id FROM file_blobs WHERE orphaned_ms <= $1 ORDER BY orphaned_ms LIMIT $2) RETURNING id`,
    [cutoff, limit],
  );
  return rows.map((r) => r.id);
}

/**
 * Writes `content` under `name` of `area` through `db`, a runner over one connection in an open
 * transaction that holds every table of the file store (`sds store copy`, which fills an empty
 * store in one transaction: docs/decisions.md, "Moving a home to PostgreSQL"): the chunks, the
 * blob's name (or an equal blob already written by the copy) and the entry are all part of that
 * transaction, so they commit or roll back with the rest of the copy. No advisory lock is taken:
 * the caller's table locks keep every other writer out. Returns what was written.
 */
export async function putFileInTransaction(
  db: PgRunner,
  area: FileArea,
  name: string,
  content: AsyncIterable<Buffer | string>,
  opts: { file: string; mtimeMs: number },
): Promise<{ size: number; md5: string; sha256: string }> {
  const blob = await writeBlob(db, content, { file: opts.file });
  const blobId = await settleBlob(db, blob, Date.now());
  await db.run('INSERT INTO file_entries (area, name, blob_id, mtime_ms) VALUES ($1, $2, $3, $4)', [
    area,
    name,
    blobId,
    Math.round(opts.mtimeMs),
  ]);
  return { size: blob.size, md5: blob.md5, sha256: blob.sha256 };
}

/** Every file of the store: area, name and sha256, in order (`sds store verify`). */
export async function storedFileHashes(db: PgRunner): Promise<{ area: FileArea; name: string; sha256: string; size: number }[]> {
  return db.rows(
    `SELECT e.area, e.name, b.sha256, b.size FROM file_entries e JOIN file_blobs b ON b.id = e.blob_id ORDER BY e.area, e.name`,
  );
}

const SNAPSHOT_OF = `SELECT e.blob_id, b.size, b.md5, b.sha256, b.head, e.mtime_ms
                       FROM file_entries e JOIN file_blobs b ON b.id = e.blob_id
                      WHERE e.area = $1 AND e.name = $2`;

/**
 * What the file store needs of its PostgreSQL store (postgresql/pg-store.ts, which makes it): a
 * write transaction that hands its runner too, so that the file's statements commit with the
 * metadata its caller records.
 */
interface PgTransactions {
  transactionWithRunner<T>(fn: (tx: StoreScope, runner: PgRunner) => Promise<T>): Promise<T>;
}

/** The files of a store held in its PostgreSQL database. */
export class PgFileStore implements FileStore {
  /** How long an orphaned version is kept (ORPHAN_GRACE_MS); tests that watch the sweep set 0. */
  orphanGraceMs = ORPHAN_GRACE_MS;

  constructor(
    private readonly store: PgTransactions,
    /** Statements outside a transaction: any connection of the pool. */
    private readonly db: PgRunner,
  ) {}

  async stage(area: FileArea, name: string, content: AsyncIterable<Buffer | string>, opts: StageOptions): Promise<StagedFile> {
    const blob = await writeBlob(this.db, content, opts);
    const staged: PgStaged = {
      area,
      name,
      file: opts.file,
      size: blob.size,
      md5: blob.md5,
      sha256: blob.sha256,
      head: blob.head,
      mtimeMs: blob.mtimeMs,
      blobId: blob.id,
    };
    return staged;
  }

  async commit<T>(staged: StagedFile, opts: CommitOptions<T> = {}): Promise<{ result: T | undefined; written: boolean }> {
    const s = staged as PgStaged;
    try {
      return await this.store.transactionWithRunner(async (tx, db) => {
        await lockName(db, s.area, s.name);
        const present = await presentOf(db, s.area, s.name, s.file);
        await opts.check?.(tx, present);
        if (present === 'directory') throw new AppError('PATH_INVALID', `${s.file} is a folder, not a file`, { file: s.file });
        if (opts.keepExisting === true && present === 'file') {
          await dropBlob(db, s.blobId);
          return { result: undefined, written: false };
        }
        const now = Date.now();
        await db.run(`SELECT pg_advisory_xact_lock(${FILE_BLOB_LOCK_KEY})`);
        const blobId = await settleBlob(db, { id: s.blobId, sha256: s.sha256, md5: s.md5, size: s.size, head: s.head }, now);
        const old = await db.row<{ blob_id: number }>('SELECT blob_id FROM file_entries WHERE area = $1 AND name = $2', [s.area, s.name]);
        await db.run(
          `INSERT INTO file_entries (area, name, blob_id, mtime_ms) VALUES ($1, $2, $3, $4)
           ON CONFLICT (area, name) DO UPDATE SET blob_id = excluded.blob_id, mtime_ms = excluded.mtime_ms`,
          [s.area, s.name, blobId, Math.round(opts.mtimeMs ?? s.mtimeMs)],
        );
        if (old && old.blob_id !== blobId) await orphanIfUnused(db, old.blob_id, now);
        await sweepOrphans(db, now - this.orphanGraceMs, ORPHANS_PER_COMMIT);
        const result = opts.record ? await opts.record(tx) : undefined;
        return { result, written: true };
      });
    } catch (err) {
      // Rolled back: the upload's blob is still unnamed.
      await dropBlob(this.db, s.blobId).catch(() => undefined);
      throw err;
    }
  }

  async discard(staged: StagedFile): Promise<void> {
    await dropBlob(this.db, (staged as PgStaged).blobId);
  }

  async withLocalCopy<T>(staged: StagedFile, fn: (path: string) => Promise<T>): Promise<T> {
    const s = staged as PgStaged;
    const dir = await mkdtemp(join(tmpdir(), 'sds-blob-'));
    try {
      const path = join(dir, 'copy');
      const row: BlobRow = { blob_id: s.blobId, size: s.size, md5: s.md5, sha256: s.sha256, head: s.head, mtime_ms: s.mtimeMs };
      await pipeline(blobSnapshot(this.db, row, s.file).stream(), createWriteStream(path, { mode: 0o600 }));
      return await fn(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async open(area: FileArea, name: string): Promise<FileSnapshot | 'directory' | undefined> {
    const row = await this.db.row<BlobRow>(SNAPSHOT_OF, [area, name]);
    if (row) return blobSnapshot(this.db, row, name);
    return (await this.isFolder(area, name)) ? 'directory' : undefined;
  }

  async present(area: FileArea, name: string, file: string): Promise<Present> {
    return presentOf(this.db, area, name, file);
  }

  async stat(area: FileArea, name: string): Promise<{ size: number; mtimeMs: number } | 'directory' | undefined> {
    const row = await this.db.row<BlobRow>(SNAPSHOT_OF, [area, name]);
    if (row) return { size: row.size, mtimeMs: row.mtime_ms };
    return (await this.isFolder(area, name)) ? 'directory' : undefined;
  }

  private async isFolder(area: FileArea, name: string): Promise<boolean> {
    return (await this.db.row(`SELECT 1 AS one FROM file_entries WHERE ${UNDER} LIMIT 1`, [area, ...rangeUnder(name)])) !== undefined;
  }

  async list(area: FileArea, folder: string): Promise<FileEntry[] | undefined> {
    const [from, to] = rangeUnder(folder);
    const rows = await this.db.rows<{ leaf: string; dir: boolean }>(
      `SELECT DISTINCT split_part(substr(name, char_length($2::text) + 1), '/', 1) AS leaf,
              strpos(substr(name, char_length($2::text) + 1), '/') > 0 AS dir
         FROM file_entries WHERE ${UNDER}`,
      [area, from, to],
    );
    if (rows.length === 0 && folder !== '') return undefined;
    return rows.map((r) => ({ name: r.leaf, type: r.dir ? 'directory' : 'file' }));
  }

  async remove<T>(
    area: FileArea,
    name: string,
    opts: { check?: (scope: StoreScope) => Promise<void>; record?: (tx: StoreScope) => Promise<T> } = {},
  ): Promise<boolean> {
    return this.store.transactionWithRunner(async (tx, db) => {
      await lockName(db, area, name);
      await opts.check?.(tx);
      const old = await db.row<{ blob_id: number }>('DELETE FROM file_entries WHERE area = $1 AND name = $2 RETURNING blob_id', [
        area,
        name,
      ]);
      if (old) {
        const now = Date.now();
        await db.run(`SELECT pg_advisory_xact_lock(${FILE_BLOB_LOCK_KEY})`);
        await orphanIfUnused(db, old.blob_id, now);
        await sweepOrphans(db, now - this.orphanGraceMs, ORPHANS_PER_COMMIT);
      }
      if (opts.record) await opts.record(tx);
      return old !== undefined;
    });
  }

  /**
   * Deletes the uploads a crash cut (blobs without a sha256): those untouched for `maxAgeMs`, and
   * those of a process of this machine that no longer runs (or is the deciding one, which has
   * written nothing yet); then the orphaned versions past their grace. Uploads of another
   * machine are judged by age only.
   */
  async removeStale(rule: StaleUploadsRule): Promise<StaleUploadsReport> {
    const report: StaleUploadsReport = { removed: [], kept: 0, failed: [] };
    try {
      const uploads = await this.db.rows<{ id: number; writer: string; touched_ms: number }>(
        'SELECT id, writer, touched_ms FROM file_blobs WHERE sha256 IS NULL ORDER BY id',
      );
      const host = WRITER.slice(0, WRITER.lastIndexOf(':'));
      for (const u of uploads) {
        const at = u.writer.lastIndexOf(':');
        const pid = Number(u.writer.slice(at + 1));
        const mine = u.writer.slice(0, at) === host;
        const stale = rule.now - u.touched_ms >= rule.maxAgeMs || (mine && (pid === rule.selfPid || !rule.alive(pid)));
        if (!stale) {
          report.kept += 1;
          continue;
        }
        await dropBlob(this.db, u.id);
        report.removed.push(`upload ${u.id} (${u.writer})`);
      }
      await this.db.atomic(async (db) => {
        await db.run(`SELECT pg_advisory_xact_lock(${FILE_BLOB_LOCK_KEY})`);
        for (const id of await sweepOrphans(db, rule.now - this.orphanGraceMs, null)) report.removed.push(`version ${id}`);
      });
    } catch (err) {
      report.failed.push({ path: 'file_blobs', reason: (err as Error).message });
    }
    return report;
  }

  homeFolder(): undefined {
    return undefined;
  }
}
