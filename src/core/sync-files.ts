import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync, type ReadStream } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../store/open-store.js';
import { AppError } from '../shared/errors.js';
import { mediaPath } from './media-path.js';
import { putFile } from './files.js';

/** A file or folder as CSWeb describes it to the data-collection client. */
export type CsFileInfo =
  | { type: 'file'; name: string; directory: string; md5: string; size: number; lastModified: string }
  | { type: 'directory'; name: string; directory: string };

/** An application deployment package as `GET /api/apps` lists it. */
export interface AppInfo {
  name: string;
  description: string;
  buildTime: string;
  version: string;
  FileType: 'Application Deployment Specification';
}

/**
 * The media-area name of a client file path. The client's paths are relative to CSWeb's files
 * area; here that is the media area, and a leading `media/` names the same area, so
 * `/api/files/media/x/content` and the spec's media route reach the same file.
 */
export function clientFileName(path: string): string {
  const p = path.replace(/^\/+|\/+$/g, '');
  return p === 'media' ? '' : p.startsWith('media/') ? p.slice('media/'.length) : p;
}

async function md5Of(path: string): Promise<string> {
  const h = createHash('md5');
  await pipeline(createReadStream(path), h);
  return h.digest('hex');
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function parentOf(name: string): string {
  const i = name.lastIndexOf('/');
  return i < 0 ? '' : name.slice(0, i);
}

function leafOf(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function notFound(path: string, what: 'file' | 'directory'): AppError {
  return new AppError('NOT_FOUND', `${what} ${path} not found in the media area`, { file: path });
}

async function infoOf(name: string, full: string): Promise<CsFileInfo> {
  const st = statSync(full, { throwIfNoEntry: false });
  if (!st) throw notFound(name, 'file');
  if (st.isDirectory()) return { type: 'directory', name: leafOf(name), directory: parentOf(name) };
  return { type: 'file', name: leafOf(name), directory: parentOf(name), md5: await md5Of(full), size: st.size, lastModified: rfc3339(st.mtimeMs) };
}

/** A media file for the client, with its md5 (the client's ETag and `Content-MD5`). */
export async function openClientFile(store: Store, path: string): Promise<{ info: Extract<CsFileInfo, { type: 'file' }>; stream: () => ReadStream }> {
  const name = clientFileName(path);
  if (name === '') throw notFound(path, 'file');
  const full = mediaPath(store.home.media, name);
  const info = await infoOf(name, full);
  if (info.type !== 'file') throw notFound(path, 'file');
  return { info, stream: () => createReadStream(full) };
}

/**
 * Stores a file the client sends, through the media area's writer (written aside and renamed).
 * With `Content-MD5` (hex, as the client sends it) a body whose md5 differs is refused and the
 * previous version kept.
 */
export async function putClientFile(store: Store, path: string, body: Readable, expectedMd5?: string): Promise<CsFileInfo> {
  const name = clientFileName(path);
  if (name === '') throw new AppError('PATH_INVALID', 'a file name is required', { file: path });
  const full = mediaPath(store.home.media, name);
  if (statSync(full, { throwIfNoEntry: false })?.isDirectory()) throw new AppError('PATH_INVALID', `${path} is a folder, not a file`, { file: path });
  const h = createHash('md5');
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      h.update(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      const got = h.digest('hex');
      if (expectedMd5 !== undefined && got !== expectedMd5.trim().toLowerCase()) {
        cb(new AppError('CHECKSUM_MISMATCH', `the body of ${path} has md5 ${got}, not the ${expectedMd5} of its Content-MD5; the file was not stored`, { file: path }));
      } else cb();
    },
  });
  body.on('error', (err) => check.destroy(err));
  try {
    await putFile(store, name, body.pipe(check));
  } catch (err) {
    const cause = err instanceof AppError ? err.cause : undefined;
    throw cause instanceof AppError ? cause : err;
  }
  return infoOf(name, full);
}

/** The entries of a media folder ('' is the area itself), folders first, by name. */
export async function listClientFolder(store: Store, path: string): Promise<CsFileInfo[]> {
  const name = clientFileName(path);
  const full = name === '' ? store.home.media : mediaPath(store.home.media, name);
  const st = statSync(full, { throwIfNoEntry: false });
  if (!st?.isDirectory()) throw notFound(path, 'directory');
  const entries = readdirSync(full, { withFileTypes: true })
    // Hidden names and the writer's half-written `.part` files are not the client's business.
    .filter((e) => !e.name.startsWith('.') && !e.name.endsWith('.part') && (e.isFile() || e.isDirectory()))
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
  const out: CsFileInfo[] = [];
  for (const e of entries) out.push(await infoOf(name === '' ? e.name : `${name}/${e.name}`, join(full, e.name)));
  return out;
}

function appFiles(store: Store): { name: string; path: string; mtimeMs: number }[] {
  let names: string[];
  try {
    names = readdirSync(store.home.apps);
  } catch {
    return [];
  }
  return names
    .filter((f) => f.toLowerCase().endsWith('.zip') && !f.startsWith('.'))
    .map((f) => ({ name: f.slice(0, -4), path: join(store.home.apps, f), mtimeMs: statSync(join(store.home.apps, f)).mtimeMs }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The application packages of the apps area (`<home>/files/apps/<name>.zip`, put there by the
 * operator). The build time is the file's modification time; there is no description or version.
 */
export function listApps(store: Store): AppInfo[] {
  return appFiles(store).map((a) => ({ name: a.name, description: '', buildTime: rfc3339(a.mtimeMs), version: '', FileType: 'Application Deployment Specification' }));
}

/** One application package, with its md5 and build time for the client's `If-None-Match` / build-time checks. */
export async function openApp(store: Store, name: string): Promise<{ name: string; md5: string; buildTime: string; buildTimeMs: number; size: number; stream: () => ReadStream }> {
  const app = appFiles(store).find((a) => a.name === name);
  if (!app) throw new AppError('NOT_FOUND', `application ${name} not found`, { app: name });
  return {
    name: app.name,
    md5: await md5Of(app.path),
    buildTime: rfc3339(app.mtimeMs),
    buildTimeMs: Math.floor(app.mtimeMs / 1000) * 1000,
    size: statSync(app.path).size,
    stream: () => createReadStream(app.path),
  };
}
