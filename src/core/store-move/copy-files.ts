import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import type { FileArea } from '../../store/file-store-contract.js';
import { localFilesOf, type LocalFile } from '../../store/file-store/local/file-store.js';
import type { FileMetadata, FileSink, StoredFile } from '../../store/postgresql/move-store.js';

/** The areas of a home's files, in the order they are copied and reported. */
const AREAS: readonly FileArea[] = ['media', 'apps', 'binary-items', 'logs'];

/** What the files step did in one area. */
export interface AreaMoved {
  area: FileArea;
  files: number;
  bytes: number;
  /** Of `files`, those without metadata to check them against (put in the folder by hand, docs/sync.md). */
  unchecked: number;
}

/** What the files step of a copy did with the home's files. */
export interface FilesMoved {
  /** Per area: media (media and synced files), apps (application packages), binary-items, logs (job and run logs). */
  areas: AreaMoved[];
  files: number;
  bytes: number;
}

const MD5 = /^[0-9a-f]{32}$/;
const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * What the copied metadata says a file's bytes must hash to, or undefined when no metadata
 * describes it: a media or synced file's `files.sha256`; a package's `zip_md5` when its
 * `app_packages` row still describes the zip (same size and build time to the second, as
 * core/sync/files.ts reads it; a zip replaced by hand since is served without it); a binary
 * item's md5, its name.
 */
function expectedOf(f: LocalFile, meta: FileMetadata): { hash: 'sha256' | 'md5'; value: string; what: string } | undefined {
  if (f.area === 'media') {
    const sha = meta.media.get(f.name);
    return sha === undefined ? undefined : { hash: 'sha256', value: sha, what: 'the sha256 of its row in files' };
  }
  if (f.area === 'apps') {
    if (!f.name.toLowerCase().endsWith('.zip')) return undefined;
    const row = meta.apps.get(f.name.slice(0, -4));
    if (row === undefined || row.zipSize !== f.size || seconds(Date.parse(row.buildTime)) !== seconds(f.mtimeMs)) return undefined;
    return { hash: 'md5', value: row.zipMd5, what: 'the md5 of its row in app_packages' };
  }
  const sig = f.name.slice(f.name.lastIndexOf('/') + 1).toLowerCase();
  return MD5.test(sig) ? { hash: 'md5', value: sig, what: 'its name (the md5 of a binary item)' } : undefined;
}

/**
 * The files step of `sds store copy` (docs/production.md, "Moving a home to PostgreSQL"): puts
 * every file of the home's folders that the local file store serves (media and synced files with
 * or without a row, application packages, binary case items) into the PostgreSQL store through
 * `sink`, streamed, with its modification time (a package's build time). Each file's hash,
 * computed as it streams, is checked against the copied metadata (expectedOf):
 * STORE_COPY_FILE_MISMATCH otherwise, which rolls the whole copy back. Breakout job and scheduled
 * run logs go too (area `logs`, nothing to check them against), so every node reads them.
 * `signal` stops it, between files or in the middle of one.
 */
export async function copyFilesIntoStore(home: HomePaths, sink: FileSink, meta: FileMetadata, signal?: AbortSignal): Promise<FilesMoved> {
  const areas: AreaMoved[] = [];
  for (const area of AREAS) {
    const moved: AreaMoved = { area, files: 0, bytes: 0, unchecked: 0 };
    for (const f of localFilesOf(home, area)) {
      signal?.throwIfAborted();
      const expected = expectedOf(f, meta);
      const put = await sink.put(area, f.name, createReadStream(f.path, { signal }), { mtimeMs: f.mtimeMs });
      if (expected === undefined) moved.unchecked++;
      else if (put[expected.hash] !== expected.value.toLowerCase()) {
        throw new AppError(
          'STORE_COPY_FILE_MISMATCH',
          `the file ${area}/${f.name} of the home has ${expected.hash} ${put[expected.hash]}, not ${expected.value} (${expected.what}): ` +
            `nothing was copied; put the file again (or remove it) in the SQLite home, then copy again`,
          { area, file: f.name, expected: expected.value, found: put[expected.hash] },
        );
      }
      moved.files++;
      moved.bytes += put.size;
    }
    areas.push(moved);
  }
  return { areas, files: areas.reduce((n, a) => n + a.files, 0), bytes: areas.reduce((n, a) => n + a.bytes, 0) };
}

/** A file that differs between the home's folders and the PostgreSQL store. */
export interface FileDifference {
  area: FileArea;
  file: string;
  /** Undefined when the file is not in the home's folders. */
  sqlite_sha256?: string;
  /** Undefined when the file is not in the PostgreSQL store. */
  postgresql_sha256?: string;
}

/** The sha256 of a file, streamed. */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * Compares the files of the home `against` (its folders, as the local file store lists them)
 * with those of the PostgreSQL store (`stored`): per area, the names and each file's sha256.
 * Returns the number compared and every difference.
 */
export async function compareFiles(
  against: HomePaths,
  stored: StoredFile[],
): Promise<{ areas: { area: FileArea; files: number; bytes: number }[]; differences: FileDifference[] }> {
  const differences: FileDifference[] = [];
  const areas: { area: FileArea; files: number; bytes: number }[] = [];
  for (const area of AREAS) {
    const inPg = new Map(stored.filter((s) => s.area === area).map((s) => [s.name, s]));
    let files = 0;
    let bytes = 0;
    for (const f of localFilesOf(against, area)) {
      const sha = await sha256Of(f.path);
      const pg = inPg.get(f.name);
      inPg.delete(f.name);
      if (pg?.sha256 !== sha) differences.push({ area, file: f.name, sqlite_sha256: sha, postgresql_sha256: pg?.sha256 });
      files++;
      bytes += f.size;
    }
    for (const [name, pg] of inPg) differences.push({ area, file: name, postgresql_sha256: pg.sha256 });
    areas.push({ area, files, bytes });
  }
  return { areas, differences };
}
