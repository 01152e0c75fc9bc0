import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { storeSetting } from '../../store/store-setting.js';
import { AppError } from '../../shared/errors.js';
import { fsyncDirectory, fsyncFile } from '../../shared/durable-file.js';
import { homeConfigPath } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';
import { requireHome } from '../../store/require-home.js';
import { snapshotStoreInto, StoreCopy, type SnapshotFileRow } from '../../store/store-snapshot.js';
import { VERSION } from '../home/index.js';
import { copyFileHashed, hashFile, type FileDigest } from './copy-file.js';
import { DurableDirs } from './durable-dirs.js';
import { makeManifest, MANIFEST, type ManifestFile } from './manifest.js';
import { pruneBackups } from './prune-backups.js';
import { walkFiles } from './walk-files.js';

/** Where a backup is: `store` while the snapshot is taken, then `files` with bytes copied of the total. */
export interface BackupProgress {
  phase: 'store' | 'files';
  done: number;
  total: number;
}

export interface BackupOptions {
  /** Keep this many complete backups in the destination (the new one included), removing the oldest. */
  keep?: number;
  /** The time that names the backup and is recorded as created_at (default: now). */
  now?: () => Date;
  onProgress?: (p: BackupProgress) => void;
  /**
   * Allows a destination inside the home (outside its `files/`): only for the backup `sds migrate`
   * takes into `<home>/backups/` before it upgrades the store, where the point is to undo a
   * migration, not to survive the loss of the disk (docs/upgrading.md#upgrading-a-home).
   */
  insideHome?: boolean;
  /**
   * Stops the backup between chunks of the file copies (the store's snapshot itself runs to its
   * end): the partial folder is removed and the signal's reason is thrown.
   */
  signal?: AbortSignal;
}

export interface BackupResult {
  /** The complete backup folder. */
  path: string;
  name: string;
  created_at: string;
  sds_version: string;
  schema_version: number;
  /** Files in the backup (the store and config.json included; the manifest not). */
  files: number;
  bytes: number;
  /**
   * Media files whose row in the snapshot no longer matched the file copied (replaced or
   * removed after the snapshot): the backup's rows were made to describe what was copied.
   */
  reconciled: { changed: string[]; removed: string[] };
  /** Backup folders removed by `keep`. */
  pruned: string[];
  /**
   * The last audit record the backup holds (0: none yet; absent for a store older than the
   * audit trail): audit retention may prune up to it (docs/supervision.md#retention).
   */
  audit_through_seq?: number;
}

/** `sds-backup-20261124T014500Z`: the UTC time of the backup, sortable as text. */
function stampOf(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

function isInside(child: string, parent: string): boolean {
  const r = relative(parent, child);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

/** The real path `path` would have: symbolic links of its nearest existing ancestor resolved. */
function realPathOf(path: string): string {
  const rest: string[] = [];
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) {
    rest.unshift(basename(p));
    p = dirname(p);
  }
  return join(realpathSync(p), ...rest);
}

/**
 * Checks and makes the destination folder (mode 0700), its new entry durable. Only the last
 * folder of the path is ever made: a destination on a disk that is not mounted must fail, not
 * fill the disk under the mount point (docs/backup.md#the-destination). A destination inside
 * the home is refused unless `insideHome` (the backup `sds migrate` takes into the home's
 * `backups/`); one inside `files/` always is, since each backup would copy the earlier ones.
 */
function prepareDest(home: HomePaths, dest: string, insideHome: boolean): void {
  const st = statSync(dest, { throwIfNoEntry: false });
  if (st !== undefined && !st.isDirectory()) {
    throw new AppError('BACKUP_DEST_INVALID', `the backup destination ${dest} is not a folder`, { file: dest });
  }
  const real = realPathOf(dest);
  const filesDir = dirname(home.media);
  if (existsSync(filesDir) && isInside(real, realpathSync(filesDir))) {
    throw new AppError('BACKUP_DEST_INVALID', `the backup destination ${dest} is inside ${filesDir}, which a backup copies`, {
      file: dest,
    });
  }
  if (!insideHome && isInside(real, realpathSync(home.root))) {
    throw new AppError(
      'BACKUP_DEST_INVALID',
      `the backup destination ${dest} is inside the home ${home.root}: a backup there is lost with the home; choose a folder outside it, on another disk`,
      { file: dest, home: home.root },
    );
  }
  if (st !== undefined) return;
  const parent = dirname(dest);
  const missingParent = () =>
    new AppError(
      'BACKUP_DEST_PARENT_MISSING',
      `the folder ${parent}, which would hold the backup destination ${dest}, does not exist: only the last folder of a destination is made, so that a disk that is not mounted is not filled in its place; create or mount ${parent} first`,
      { file: dest, parent },
    );
  if (!statSync(parent, { throwIfNoEntry: false })?.isDirectory()) throw missingParent();
  try {
    mkdirSync(dest, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dest).isDirectory()) return; // made meanwhile by another backup
    if (code === 'ENOENT') throw missingParent();
    throw new AppError(
      'BACKUP_DEST_INVALID',
      `cannot create the backup destination ${dest}: ${code ?? (err as Error).message}`,
      { file: dest },
      { cause: err },
    );
  }
  fsyncDirectory(dest);
  fsyncDirectory(parent);
}

/** A folder name in `dest` not yet taken: the stamp, else the stamp with -2, -3, … (two backups in one second). */
function freeName(dest: string, stamp: string): string {
  for (let i = 1; ; i++) {
    const name = i === 1 ? `sds-backup-${stamp}` : `sds-backup-${stamp}-${i}`;
    if (!existsSync(join(dest, name))) return name;
  }
}

/**
 * Compares the snapshot's media rows with the files copied and makes the backup's rows describe
 * the copies (docs/backup.md#consistency).
 */
function reconcile(rows: SnapshotFileRow[], copied: Map<string, FileDigest>): { changed: SnapshotFileRow[]; removed: string[] } {
  const changed: SnapshotFileRow[] = [];
  const removed: string[] = [];
  for (const row of rows) {
    const got = copied.get(`files/media/${row.name}`);
    if (got === undefined) removed.push(row.name);
    else if (got.size !== row.size || got.sha256 !== row.sha256) changed.push({ name: row.name, ...got });
  }
  return { changed, removed };
}

/**
 * Backs up a home into a new folder `dest/sds-backup-<UTC stamp>/`: a consistent snapshot of the
 * store taken with `VACUUM INTO` while other processes keep writing, the media and application
 * files, config.json, and a manifest with every file's size and SHA-256 (docs/backup.md). The
 * folder is written under a hidden temporary name and renamed when complete and durable, so a
 * half-made backup never looks like one. The store is opened read-only and never migrated:
 * `sds migrate` backs up a store of an older schema with this. With `keep`, the oldest complete
 * backups of `dest` beyond that number are removed afterwards. Only the last folder of `dest`
 * is made (BACKUP_DEST_PARENT_MISSING otherwise), and `dest` may not lie inside the home
 * (BACKUP_DEST_INVALID) unless `insideHome`.
 */
export async function backupHome(home: HomePaths, dest: string, opts: BackupOptions = {}): Promise<BackupResult> {
  if (opts.keep !== undefined && (!Number.isSafeInteger(opts.keep) || opts.keep < 1)) {
    throw new AppError('USAGE', `the number of backups to keep must be a whole number of 1 or more, not ${opts.keep}`, {
      field: 'keep',
      settings: ['keep'],
    });
  }
  const setting = storeSetting(home);
  if (setting.kind === 'postgresql') {
    // The database is the office's to back up, with its own tools (docs/production.md#backup-of-a-postgresql-store).
    throw new AppError(
      'BACKUP_STORE_EXTERNAL',
      `the store of the home ${home.root} is the PostgreSQL database ${setting.shownUrl}: back it up with pg_dump (or the office's PostgreSQL backups), which holds its files too, and the home folder for its config.json; sds backup copies a SQLite store only`,
      { store: setting.shownUrl, home: home.root },
    );
  }
  requireHome(home);
  const destDir = resolve(dest);
  prepareDest(home, destDir, opts.insideHome === true);
  const created = (opts.now ?? (() => new Date()))();
  const name = freeName(destDir, stampOf(created));
  const tmp = join(destDir, `.${name}.partial-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp, { mode: 0o700 });
  let result: BackupResult;
  try {
    const dirs = new DurableDirs(tmp);
    const entries: ManifestFile[] = [];

    opts.onProgress?.({ phase: 'store', done: 0, total: 0 });
    const dbCopy = join(tmp, 'sds.db');
    opts.signal?.throwIfAborted();
    snapshotStoreInto(home.db, dbCopy);
    // SQLite creates the copy with the umask's mode; it holds the signing key and webhook secrets.
    chmodSync(dbCopy, 0o600);

    // Files after the snapshot: a file written since then is copied in its newer version and
    // the backup's row made to match it, never a row pointing at bytes the backup lacks.
    const filesDir = dirname(home.media);
    const found = walkFiles(filesDir, { skipHidden: true });
    const total = found.reduce((n, f) => n + f.size, 0);
    let done = 0;
    const copied = new Map<string, FileDigest>();
    for (const f of found) {
      const to = join(tmp, 'files', ...f.rel.split('/'));
      dirs.parentOf(to);
      let digest: FileDigest;
      try {
        digest = await copyFileHashed(
          join(filesDir, ...f.rel.split('/')),
          to,
          (n) => {
            done += n;
            opts.onProgress?.({ phase: 'files', done, total });
          },
          opts.signal,
        );
      } catch (err) {
        // Removed between the listing and the copy: it is not part of this backup.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          rmSync(to, { force: true });
          continue;
        }
        throw err;
      }
      copied.set(`files/${f.rel}`, digest);
      entries.push({ path: `files/${f.rel}`, ...digest });
    }

    const copy = StoreCopy.open(dbCopy);
    let schemaVersion: number;
    let auditSeq: number | undefined;
    let fix: { changed: SnapshotFileRow[]; removed: string[] };
    try {
      schemaVersion = copy.schemaVersion();
      auditSeq = copy.auditHeadSeq();
      fix = reconcile(copy.fileRows(), copied);
      if (fix.changed.length > 0 || fix.removed.length > 0) copy.reconcileFiles(fix.changed, fix.removed);
    } finally {
      copy.close();
    }
    fsyncFile(dbCopy);
    entries.push({ path: 'sds.db', ...(await hashFile(dbCopy)) });

    const config = homeConfigPath(home);
    if (existsSync(config)) entries.push({ path: 'config.json', ...(await copyFileHashed(config, join(tmp, 'config.json'))) });

    const manifest = makeManifest(VERSION, schemaVersion, created, entries);
    writeFileSync(join(tmp, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    fsyncFile(join(tmp, MANIFEST));
    dirs.sync();
    renameSync(tmp, join(destDir, name));
    fsyncDirectory(destDir);

    result = {
      path: join(destDir, name),
      name,
      created_at: manifest.created_at,
      sds_version: VERSION,
      schema_version: schemaVersion,
      files: entries.length,
      bytes: entries.reduce((n, e) => n + e.size, 0),
      reconciled: { changed: fix.changed.map((f) => f.name), removed: fix.removed },
      pruned: [],
      ...(auditSeq === undefined ? {} : { audit_through_seq: auditSeq }),
    };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (err instanceof AppError || opts.signal?.aborted) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new AppError(
      'IO_ERROR',
      `the backup into ${destDir} failed: ${e.code ?? e.message}`,
      { file: e.path ?? destDir },
      { cause: err },
    );
  }
  // The new backup is complete before anything older is removed.
  if (opts.keep !== undefined) result.pruned = pruneBackups(destDir, opts.keep, name);
  return result;
}
