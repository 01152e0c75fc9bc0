import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AppError } from '../../shared/errors.js';
import { fsyncDirectory } from '../../shared/durable-file.js';
import type { HomePaths } from '../../shared/home.js';
import { checkStoreFile } from '../../store/store-snapshot.js';
import { chooseBackup } from './choose-backup.js';
import { copyFileHashed, hashFile } from './copy-file.js';
import { DurableDirs } from './durable-dirs.js';
import { MANIFEST, readManifest, type Manifest, type ManifestFile } from './manifest.js';
import { walkFiles } from './walk-files.js';

/** Where a restore is: `verify` while the backup is checked, `write` while the home is written; bytes. */
export interface RestoreProgress {
  phase: 'verify' | 'write';
  done: number;
  total: number;
}

export interface RestoreOptions {
  /** `src` is a folder of backups (a `sds backup` DEST): restore its newest complete backup. */
  latest?: boolean;
  onProgress?: (p: RestoreProgress) => void;
  /** Stops the restore between chunks: what it wrote is removed and the signal's reason thrown. */
  signal?: AbortSignal;
}

export interface RestoreResult {
  home: string;
  source: string;
  created_at: string;
  sds_version: string;
  schema_version: number;
  /** The newest schema version this sds knows. */
  latest_schema_version: number;
  /** True when the restored store is at an older schema: run `sds migrate` before using it. */
  needs_migration: boolean;
  files: number;
  bytes: number;
}

function mismatch(src: string, f: ManifestFile, what: string): AppError {
  return new AppError('BACKUP_CHECKSUM_MISMATCH', `${f.path} of the backup ${src} ${what}`, { file: join(src, ...f.path.split('/')) });
}

/** Every check of the backup folder, before anything is written (docs/backup.md#restore). */
async function verifyBackup(src: string, opts: RestoreOptions): Promise<{ manifest: Manifest; latest: number }> {
  const manifest = readManifest(src);
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  const odd = (rel: string) => {
    throw new AppError('BACKUP_FILE_UNLISTED', `the backup ${src} holds ${rel}, which is not a regular file its manifest lists`, {
      file: join(src, rel),
    });
  };
  const present = new Map(walkFiles(src, { skipHidden: false, other: odd }).map((f) => [f.rel, f.size]));
  for (const rel of present.keys()) if (rel !== MANIFEST && !listed.has(rel)) odd(rel);
  for (const f of manifest.files) {
    const size = present.get(f.path);
    if (size === undefined) {
      throw new AppError('BACKUP_FILE_MISSING', `${f.path}, listed in the manifest of the backup ${src}, is not there`, {
        file: join(src, ...f.path.split('/')),
      });
    }
    if (size !== f.size) throw mismatch(src, f, `has ${size} bytes, not the ${f.size} of its manifest`);
  }
  const total = manifest.files.reduce((n, f) => n + f.size, 0);
  let done = 0;
  for (const f of manifest.files) {
    const got = await hashFile(
      join(src, ...f.path.split('/')),
      (n) => {
        done += n;
        opts.onProgress?.({ phase: 'verify', done, total });
      },
      opts.signal,
    );
    if (got.sha256 !== f.sha256) throw mismatch(src, f, `has SHA-256 ${got.sha256}, not the ${f.sha256} of its manifest`);
  }
  const db = join(src, 'sds.db');
  const check = checkStoreFile(db);
  if (check.integrity.length !== 1 || check.integrity[0] !== 'ok') {
    throw new AppError(
      'BACKUP_INTEGRITY_FAILED',
      `the store sds.db of the backup ${src} is damaged: ${check.integrity.slice(0, 5).join('; ')}`,
      {
        file: db,
      },
    );
  }
  if (check.foreignKeyViolations > 0) {
    throw new AppError(
      'BACKUP_INTEGRITY_FAILED',
      `the store sds.db of the backup ${src} has ${check.foreignKeyViolations} broken references (PRAGMA foreign_key_check)`,
      { file: db },
    );
  }
  if (check.schemaVersion > check.latestVersion) {
    throw new AppError(
      'STORE_TOO_NEW',
      `the store sds.db of the backup ${src} is at schema version ${check.schemaVersion} but this sds knows only up to ${check.latestVersion}; restore it with a newer sds`,
      { file: db, version: check.schemaVersion, known: check.latestVersion },
    );
  }
  if (check.schemaVersion !== manifest.schema_version) {
    throw new AppError(
      'BACKUP_MANIFEST_INVALID',
      `the ${MANIFEST} of the backup ${src} says schema version ${manifest.schema_version} but its sds.db is at ${check.schemaVersion}`,
      { file: join(src, MANIFEST) },
    );
  }
  return { manifest, latest: check.latestVersion };
}

/** Refuses a home folder that exists and holds anything (or is not a folder). */
function checkTarget(home: HomePaths): boolean {
  const st = statSync(home.root, { throwIfNoEntry: false });
  if (st === undefined) return false;
  if (!st.isDirectory() || readdirSync(home.root).length > 0) {
    throw new AppError(
      'RESTORE_HOME_NOT_EMPTY',
      `cannot restore into ${home.root}: it ${st.isDirectory() ? 'is not empty' : 'is not a folder'}; a restore writes only a missing or empty home`,
      { path: home.root },
    );
  }
  return true;
}

/**
 * Restores the backup folder `src` into a new home: first checks everything (the manifest, every
 * file's presence, size and SHA-256, no unlisted file, the store's integrity and foreign keys, a
 * schema this sds knows) and that the home is missing or empty, writing nothing until all pass;
 * then writes the home (folders 0700, files 0600), the store last under a temporary name renamed
 * into place, so a restore cut short never leaves something that looks like a home
 * (docs/backup.md#restore). A store of an older schema is restored as it is: `sds migrate`
 * brings it up to date. `src` may also be a folder of backups with `latest` (chooseBackup).
 */
export async function restoreHome(src: string, home: HomePaths, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const from = chooseBackup(resolve(src), opts.latest === true);
  const { manifest, latest } = await verifyBackup(from, opts);
  const existed = checkTarget(home);

  const total = manifest.files.reduce((n, f) => n + f.size, 0);
  let done = 0;
  // The store goes last: a home exists when its sds.db does.
  const order = [...manifest.files.filter((f) => f.path !== 'sds.db'), ...manifest.files.filter((f) => f.path === 'sds.db')];
  try {
    mkdirSync(home.root, { recursive: true, mode: 0o700 });
    chmodSync(home.root, 0o700);
    const dirs = new DurableDirs(home.root);
    for (const d of [home.media, home.apps, home.breakoutLogs, home.importLogs, home.locks, home.targets]) dirs.ensure(d);
    for (const f of order) {
      const final = join(home.root, ...f.path.split('/'));
      const to = f.path === 'sds.db' ? join(home.root, '.sds.db.restoring') : final;
      dirs.parentOf(to);
      const got = await copyFileHashed(
        join(from, ...f.path.split('/')),
        to,
        (n) => {
          done += n;
          opts.onProgress?.({ phase: 'write', done, total });
        },
        opts.signal,
      );
      if (got.sha256 !== f.sha256 || got.size !== f.size) throw mismatch(from, f, 'changed while it was being restored');
      if (to !== final) renameSync(to, final);
    }
    dirs.sync();
    try {
      fsyncDirectory(dirname(home.root));
    } catch {
      // The parent may not be ours to open; the home's own entries are durable.
    }
  } catch (err) {
    if (existed)
      for (const name of existsSync(home.root) ? readdirSync(home.root) : [])
        rmSync(join(home.root, name), { recursive: true, force: true });
    else rmSync(home.root, { recursive: true, force: true });
    if (err instanceof AppError || opts.signal?.aborted) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new AppError(
      'IO_ERROR',
      `the restore into ${home.root} failed: ${e.code ?? e.message}`,
      { file: e.path ?? home.root },
      { cause: err },
    );
  }
  return {
    home: home.root,
    source: from,
    created_at: manifest.created_at,
    sds_version: manifest.sds_version,
    schema_version: manifest.schema_version,
    latest_schema_version: latest,
    needs_migration: manifest.schema_version < latest,
    files: manifest.files.length,
    bytes: total,
  };
}
