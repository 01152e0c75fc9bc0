import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connection, RowDataPacket } from 'mysql2/promise';

/** One row of CSWeb's `cspro_apps` (docs/migrating-from-csweb.md#files-and-app-packages). */
export interface CswebApp {
  name: string;
  description: string | null;
  /** `YYYY-MM-DDTHH:MM:SSZ`: CSWeb keeps the package's build time as a zone-less wall time, given in UTC by the packager. */
  buildTime: string | null;
  /** Relative to CSWeb's files folder, `/`-separated (`apps/<name>.zip`). */
  path: string;
  version: string | null;
  /** The package's `files` list as CSWeb re-encoded it (JSON text). */
  files: string | null;
  /** md5 of the `package.json` inside the zip. */
  signature: string | null;
}

/**
 * Reads every application package of `cspro_apps`, by name. The build time is formatted by the
 * server, so the driver's time-zone handling of DATETIME never shifts it.
 */
export async function readCswebApps(conn: Connection): Promise<CswebApp[]> {
  const [rows] = await conn.query<RowDataPacket[]>(
    "SELECT name, description, DATE_FORMAT(build_time, '%Y-%m-%dT%H:%i:%sZ') AS build_time, path, version, files, signature " +
      'FROM cspro_apps ORDER BY name',
  );
  return rows.map((r) => ({
    name: String(r.name),
    description: r.description as string | null,
    buildTime: r.build_time as string | null,
    path: String(r.path),
    version: r.version as string | null,
    files: r.files as string | null,
    signature: r.signature as string | null,
  }));
}

/** What a file of CSWeb's files folder is, by where it lies (docs/migrating-from-csweb.md#files-and-app-packages). */
export type CswebDiskEntry =
  /** A synced file: `path` is relative to the files folder, `/`-separated. */
  | { kind: 'synced'; path: string; full: string; stats: Stats }
  /** A file under `apps/` other than `apps/updates/`: a package, if a `cspro_apps` row names it. */
  | { kind: 'app'; path: string; full: string; stats: Stats }
  /** A cached partial update package under `apps/updates/`. */
  | { kind: 'app-update'; path: string }
  /** A binary case item under `binary-items/<dictionary>/`. */
  | { kind: 'binary-item'; path: string; dictionary: string }
  /** Anything that is not a plain file or folder (a symbolic link, a socket, …). */
  | { kind: 'special'; path: string }
  /** A folder or file that could not be read (permissions, or gone while walking): `why` is the system's code. */
  | { kind: 'unreadable'; path: string; why: string };

function kindOf(path: string): 'synced' | 'app' | 'app-update' | 'binary-item' {
  if (path.startsWith('binary-items/')) return 'binary-item';
  if (path.startsWith('apps/updates/')) return 'app-update';
  if (path.startsWith('apps/')) return 'app';
  return 'synced';
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}

async function entriesOf(folder: string): Promise<Dirent[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Walks CSWeb's files folder depth first, in byte order of names, one folder listing in memory
 * at a time, and tells each file what it is by its place: `apps/` holds packages,
 * `apps/updates/` their cached partial updates, `binary-items/<dictionary>/` binary case
 * items, and everything else is a synced file. Symbolic links are not followed.
 */
export async function* walkCswebFiles(root: string): AsyncGenerator<CswebDiskEntry> {
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const folder = rel === '' ? root : join(root, rel);
    let entries: Dirent[];
    try {
      entries = await entriesOf(folder);
    } catch (err) {
      // The files folder itself must be readable; below it, one unreadable folder does not stop the rest.
      if (rel === '') throw err;
      yield { kind: 'unreadable', path: rel, why: codeOf(err) };
      continue;
    }
    const subfolders: string[] = [];
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        subfolders.push(path);
        continue;
      }
      if (!e.isFile()) {
        yield { kind: 'special', path };
        continue;
      }
      const kind = kindOf(path);
      if (kind === 'binary-item') {
        yield { kind, path, dictionary: path.split('/').length > 2 ? path.split('/')[1]! : '' };
      } else if (kind === 'app-update') {
        yield { kind, path };
      } else {
        const full = join(folder, e.name);
        let stats: Stats;
        try {
          stats = await lstat(full);
        } catch (err) {
          yield { kind: 'unreadable', path, why: codeOf(err) };
          continue;
        }
        yield { kind, path, full, stats };
      }
    }
    // Reversed onto the stack so folders come out in name order.
    for (let i = subfolders.length - 1; i >= 0; i--) stack.push(subfolders[i]!);
  }
}
