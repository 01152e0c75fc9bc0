import type { Store } from '../../store/open-store.js';
import type { AppPackageRow } from '../../store/app-packages-repo.js';
import { AppError } from '../../shared/errors.js';
import { type FileSnapshot, storeFile, type FileWriter, mediaName } from '../files/index.js';
import { parseAppPackageSpec } from './app-package-spec.js';
import { readPackageSpec } from './read-package-spec.js';

/** A file or folder as CSWeb describes it to the data-collection client. */
export type CsFileInfo =
  | { type: 'file'; name: string; directory: string; md5?: string; size: number; lastModified: string }
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
function clientFileName(path: string): string {
  const p = path.replace(/^\/+|\/+$/g, '');
  const name = p === 'media' ? '' : p.startsWith('media/') ? p.slice('media/'.length) : p;
  // The stored form of a name (NFC), so a client that composes accents otherwise finds the same file.
  return name === '' ? '' : mediaName(name);
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

type ClientFile = Extract<CsFileInfo, { type: 'file' }>;

function fileEntry(name: string, v: { md5?: string; size: number; mtimeMs: number }): ClientFile {
  const entry: ClientFile = { type: 'file', name: leafOf(name), directory: parentOf(name), size: v.size, lastModified: rfc3339(v.mtimeMs) };
  if (v.md5 !== undefined) entry.md5 = v.md5;
  return entry;
}

/**
 * One version of a media file for the client, with its md5 (the client's ETag and
 * `Content-MD5`): the info describes exactly the bytes the snapshot streams, even while the
 * file is being replaced.
 */
export async function openClientFile(store: Store, path: string): Promise<{ info: ClientFile & { md5: string }; snapshot: FileSnapshot }> {
  const name = clientFileName(path);
  if (name === '') throw notFound(path, 'file');
  const snapshot = await store.fileStore.open('media', name);
  if (snapshot === undefined || snapshot === 'directory') throw notFound(path, 'file');
  return { info: { ...fileEntry(name, snapshot), md5: snapshot.md5 }, snapshot };
}

export interface ClientPutOptions {
  /** The account sending the file (the overwrite rule of docs/sync.md). */
  writer: FileWriter;
  /** `Content-MD5` as the client sends it (hex); a body of another md5 is refused, the old version kept. */
  expectedMd5?: string;
  /** The file-size limit; more is 413 PAYLOAD_TOO_LARGE as soon as it is crossed. */
  maxBytes?: number;
}

/**
 * Stores a file the client sends through the media area's writer (written aside, fsynced,
 * renamed over, durable before this resolves), under the overwrite rule of docs/sync.md.
 * Answers with the version written.
 */
export async function putClientFile(
  store: Store,
  path: string,
  body: AsyncIterable<Buffer | string>,
  opts: ClientPutOptions,
): Promise<CsFileInfo> {
  const name = clientFileName(path);
  if (name === '') throw new AppError('PATH_INVALID', 'a file name is required', { file: path });
  const stored = await storeFile(store, name, body, { ...opts, file: path });
  return fileEntry(name, { md5: stored.md5, size: stored.info.size, mtimeMs: stored.mtimeMs });
}

/**
 * The entries of a media folder ('' is the area itself), folders first, by name. Without `md5`
 * (CSPro 8.1's paradata listings ask so) files are not hashed: their size and time come from a stat.
 */
export async function listClientFolder(store: Store, path: string, opts: { md5?: boolean } = {}): Promise<CsFileInfo[]> {
  const name = clientFileName(path);
  const listed = await store.fileStore.list('media', name);
  if (listed === undefined) throw notFound(path, 'directory');
  const entries = listed.sort((a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || a.name.localeCompare(b.name));
  const out: CsFileInfo[] = [];
  for (const e of entries) {
    const entry = name === '' ? e.name : `${name}/${e.name}`;
    if (e.type === 'directory') {
      out.push({ type: 'directory', name: e.name, directory: name });
      continue;
    }
    if (opts.md5 === false) {
      const st = await store.fileStore.stat('media', entry);
      if (st !== undefined && st !== 'directory') out.push(fileEntry(entry, st));
      continue;
    }
    // Size, md5 and time of one version each, even while the file is being replaced.
    const snap = await store.fileStore.open('media', entry);
    if (snap === undefined || snap === 'directory') continue;
    await snap.close();
    out.push(fileEntry(entry, snap));
  }
  return out;
}

interface AppFile {
  name: string;
  /** Its name in the apps area (`<name>.zip`, the extension in any case). */
  file: string;
  mtimeMs: number;
  size: number;
}

/** The `<name>.zip` packages of the apps area, by name. */
async function appFiles(store: Store): Promise<AppFile[]> {
  const apps: AppFile[] = [];
  for (const e of (await store.fileStore.list('apps', '')) ?? []) {
    if (e.type !== 'file' || !e.name.toLowerCase().endsWith('.zip') || e.name.startsWith('.')) continue;
    // A package the operator is replacing right now may be gone between the listing and the stat.
    const st = await store.fileStore.stat('apps', e.name);
    if (st !== undefined && st !== 'directory') apps.push({ name: e.name.slice(0, -4), file: e.name, mtimeMs: st.mtimeMs, size: st.size });
  }
  return apps.sort((a, b) => a.name.localeCompare(b.name));
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * The metadata kept for a package (a deployment or an import from CSWeb), when it still describes the zip there:
 * same size and build time to the second (and, given, the same md5). A zip replaced by hand since
 * has none, and is listed as a hand-made package (docs/sync.md#apps).
 */
async function metadataOf(store: Store, app: AppFile, md5?: string): Promise<AppPackageRow | undefined> {
  const row = await store.appPackages.find(app.name);
  if (row === undefined || row.zipSize !== app.size || seconds(Date.parse(row.buildTime)) !== seconds(app.mtimeMs)) return undefined;
  return md5 === undefined || md5 === row.zipMd5 ? row : undefined;
}

/**
 * The application packages of the apps area (`<home>/files/apps/<name>.zip`, put there by the
 * operator, by a deployment or by `sds csweb import --files`). The build time is the file's
 * modification time; the description and version are those kept with the package by a
 * deployment or an import from CSWeb, empty for a zip put there by hand (docs/sync.md#apps).
 */
export async function listApps(store: Store): Promise<AppInfo[]> {
  const out: AppInfo[] = [];
  for (const a of await appFiles(store)) {
    const meta = await metadataOf(store, a);
    out.push({
      name: a.name,
      description: meta?.description ?? '',
      buildTime: rfc3339(a.mtimeMs),
      version: meta?.version ?? '',
      FileType: 'Application Deployment Specification',
    });
  }
  return out;
}

/**
 * One application package, with its md5 and build time for the client's `If-None-Match` / build-time checks,
 * and its `signature` (md5 of its `package.json`) when a deployment or an import kept it for this very zip:
 * the client sends the signature of the package it has as `If-None-Match` (docs/sync.md#apps).
 */
export async function openApp(
  store: Store,
  name: string,
): Promise<{
  name: string;
  md5: string;
  signature?: string;
  buildTime: string;
  buildTimeMs: number;
  size: number;
  snapshot: FileSnapshot;
}> {
  const app = (await appFiles(store)).find((a) => a.name === name);
  const snapshot = app && (await store.fileStore.open('apps', app.file));
  if (!app || snapshot === undefined || snapshot === 'directory')
    throw new AppError('NOT_FOUND', `application ${name} not found`, { app: name });
  const meta = await metadataOf(store, { ...app, size: snapshot.size, mtimeMs: snapshot.mtimeMs }, snapshot.md5);
  return {
    name: app.name,
    md5: snapshot.md5,
    ...(meta?.signature ? { signature: meta.signature } : {}),
    buildTime: rfc3339(snapshot.mtimeMs),
    buildTimeMs: Math.floor(snapshot.mtimeMs / 1000) * 1000,
    size: snapshot.size,
    snapshot,
  };
}

/** The zip of a package name in the apps area, refused (PATH_INVALID) when the name could leave the area or hide. */
function appZipName(name: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/^[^/\\\u0000-\u001f\u007f]+$/.test(name) || name.startsWith('.') || name.length > 200) {
    throw new AppError(
      'PATH_INVALID',
      `"${name}" is not a package name: no slashes, control characters or leading dot, at most 200 characters`,
      {
        app: name,
      },
    );
  }
  return `${name}.zip`;
}

/** Where the metadata of a package deployed over HTTP came from (docs/sync.md#apps). */
const DEPLOY_SOURCE = 'deploy';

/**
 * Stores an application package sent by CSPro's deployment (`PUT /api/apps/{name}`) as
 * `<home>/files/apps/<name>.zip`: written aside, fsynced, renamed over the old one
 * (docs/sync.md#apps). Its `package.json` (at most `maxSpecBytes`) gives the description,
 * version, files list and signature kept with it, and its build time, which becomes the zip's
 * time (the time it was written when it states none). A zip without a readable `package.json`
 * is stored all the same, without metadata, and `warning` says why. With `expectedMd5`
 * (`Content-MD5`, hex) a body of another md5 is refused; more than `maxBytes` is 413.
 */
export async function putApp(
  store: Store,
  name: string,
  body: AsyncIterable<Buffer>,
  opts: { expectedMd5?: string; maxBytes?: number; maxSpecBytes: number },
): Promise<{ app: AppInfo; warning?: string }> {
  const staged = await store.fileStore.stage('apps', appZipName(name), body, {
    file: `${name}.zip`,
    expectedMd5: opts.expectedMd5,
    maxBytes: opts.maxBytes,
  });
  // Read from the staged version: the very bytes stored, whatever another deployment does meanwhile.
  let read;
  try {
    read = await store.fileStore.withLocalCopy(staged, (path) => readPackageSpec(path, opts.maxSpecBytes));
  } catch (err) {
    read = { problem: `it could not be read (${(err as Error).message})` };
  }
  const parsed = 'bytes' in read ? parseAppPackageSpec(read.bytes) : read;
  const spec = 'spec' in parsed ? parsed.spec : undefined;
  const mtimeMs = spec?.buildTimeMs !== undefined ? seconds(spec.buildTimeMs) * 1000 : staged.mtimeMs;
  // The zip first, then its metadata (on PostgreSQL in the same transaction): a row saved first
  // would describe a zip not there yet.
  await store.fileStore.commit(staged, {
    mtimeMs,
    record: async (tx) => {
      if (spec === undefined) await tx.appPackages.remove(name);
      else
        await tx.appPackages.save({
          name,
          description: spec.description,
          version: spec.version,
          files: spec.files,
          signature: spec.signature,
          buildTime: rfc3339(mtimeMs),
          zipSize: staged.size,
          zipMd5: staged.md5,
          source: DEPLOY_SOURCE,
        });
    },
  });
  const app: AppInfo = {
    name,
    description: spec?.description ?? '',
    buildTime: rfc3339(mtimeMs),
    version: spec?.version ?? '',
    FileType: 'Application Deployment Specification',
  };
  if (spec !== undefined) return { app };
  const problem = 'problem' in parsed ? parsed.problem : '';
  const what = 'name' in read ? `its ${read.name} cannot be used: ${problem}` : problem;
  return { app, warning: `application package ${name} was stored without description, version or signature: ${what}` };
}

/** Removes an application package (`DELETE /api/apps/{name}`) and its kept metadata; NOT_FOUND when there is none. */
export async function deleteApp(store: Store, name: string): Promise<void> {
  const zip = appZipName(name);
  if (!(await appFiles(store)).some((a) => a.name === name))
    throw new AppError('NOT_FOUND', `application ${name} not found`, { app: name });
  await store.fileStore.remove('apps', zip, {
    record: async (tx) => {
      await tx.appPackages.remove(name);
    },
  });
}
