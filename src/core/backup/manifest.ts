import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../shared/errors.js';

/** The name of a backup's manifest inside its folder. */
export const MANIFEST = 'manifest.json';

/** What `format` of a manifest says: this file describes an sds backup. */
const FORMAT = 'sds-backup';

/** The manifest layout this sds writes and reads (docs/backup.md#the-manifest). */
const FORMAT_VERSION = 1;

/** One file of a backup, by its path relative to the backup folder (forward slashes). */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** The manifest.json of a backup folder (docs/backup.md#the-manifest). */
export interface Manifest {
  format: typeof FORMAT;
  format_version: number;
  sds_version: string;
  schema_version: number;
  created_at: string;
  files: ManifestFile[];
}

/** Builds a manifest of the files of a backup. */
export function makeManifest(sdsVersion: string, schemaVersion: number, createdAt: Date, files: ManifestFile[]): Manifest {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    format: FORMAT,
    format_version: FORMAT_VERSION,
    sds_version: sdsVersion,
    schema_version: schemaVersion,
    created_at: createdAt.toISOString(),
    files: sorted,
  };
}

/**
 * Whether a manifest path is one a backup may hold: `sds.db`, `config.json`, or a file under
 * `files/`, relative, with no empty, `.` or `..` segment (a manifest must not make a restore
 * write outside its home).
 */
function isAllowedPath(path: string): boolean {
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\0'))) return false;
  if (parts.length === 1) return path === 'sds.db' || path === 'config.json';
  return parts[0] === 'files';
}

function invalid(dir: string, what: string): AppError {
  return new AppError('BACKUP_MANIFEST_INVALID', `the ${MANIFEST} of the backup ${dir} ${what}`, { file: join(dir, MANIFEST) });
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Reads and checks the manifest of the backup folder `dir`: its fields, a format version this
 * sds reads, and every listed path (allowed, listed once, sds.db among them). Throws
 * BACKUP_MANIFEST_INVALID saying what is wrong.
 */
export function readManifest(dir: string): Manifest {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw invalid(dir, code === 'ENOENT' ? 'is missing: this is not an sds backup folder' : `cannot be read (${code ?? 'error'})`);
  }
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw invalid(dir, 'is not valid JSON');
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw invalid(dir, 'is not a JSON object');
  const o = m as Record<string, unknown>;
  if (o.format !== FORMAT) throw invalid(dir, `does not say "format": "${FORMAT}"`);
  if (!isCount(o.format_version)) throw invalid(dir, 'has no whole-number format_version');
  if (o.format_version > FORMAT_VERSION) {
    throw invalid(dir, `has format version ${o.format_version}, newer than the ${FORMAT_VERSION} this sds reads; upgrade sds`);
  }
  if (typeof o.sds_version !== 'string') throw invalid(dir, 'has no sds_version');
  if (!isCount(o.schema_version)) throw invalid(dir, 'has no whole-number schema_version');
  if (typeof o.created_at !== 'string' || Number.isNaN(Date.parse(o.created_at))) throw invalid(dir, 'has no valid created_at time');
  if (!Array.isArray(o.files)) throw invalid(dir, 'has no files list');
  const seen = new Set<string>();
  const files: ManifestFile[] = [];
  for (const [i, f] of (o.files as unknown[]).entries()) {
    const e = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
    if (typeof e.path !== 'string' || !isCount(e.size) || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) {
      throw invalid(dir, `has an entry ${i} of files without a path, a size and a SHA-256`);
    }
    if (!isAllowedPath(e.path)) throw invalid(dir, `lists ${JSON.stringify(e.path)}, which is not a file a backup may hold`);
    if (seen.has(e.path)) throw invalid(dir, `lists ${e.path} twice`);
    seen.add(e.path);
    files.push({ path: e.path, size: e.size, sha256: e.sha256 });
  }
  if (!seen.has('sds.db')) throw invalid(dir, 'does not list the store sds.db');
  return {
    format: FORMAT,
    format_version: o.format_version,
    sds_version: o.sds_version,
    schema_version: o.schema_version,
    created_at: o.created_at,
    files,
  };
}

/** The manifest of `dir` when it is a complete backup, else undefined (for pruning: never a guess). */
export function manifestIfComplete(dir: string): Manifest | undefined {
  try {
    return readManifest(dir);
  } catch {
    return undefined;
  }
}
