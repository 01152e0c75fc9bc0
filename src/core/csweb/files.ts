import { createHash } from 'node:crypto';
import { constants, createReadStream, type Stats } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import { readCswebApps, walkCswebFiles, type CswebApp } from '../../csweb/files-reader.js';
import type { CswebReportEntry } from '../../csweb/report-entry.js';
import { AppError } from '../../shared/errors.js';
import type { StoreScope } from '../../store/store-contract.js';
import { mediaName, storeFile } from '../files/index.js';

/** Counts of one kind of thing an import looked at. */
export interface CswebCopyCounts {
  /** Copied (with `dryRun`: would be copied). */
  copied: number;
  /** Already in sds as they are in CSWeb: left alone. */
  unchanged: number;
  /** Not carried over; each has a report entry of level `error`. */
  refused: number;
  /** Bytes copied (with `dryRun`: would be copied). */
  bytes: number;
}

/** What `importCswebFiles` did (or, with `dryRun`, would do). */
export interface CswebFilesResult {
  dryRun: boolean;
  files: CswebCopyCounts;
  apps: CswebCopyCounts;
  /** Binary case items found in the folder (their content is copied with the cases that hold them). */
  binaryItems: number;
  /** Cached partial update packages found and skipped. */
  appUpdates: number;
  report: CswebReportEntry[];
}

export interface CswebFilesOptions {
  /** Look and report, write nothing. */
  dryRun?: boolean;
  /** Called after each synced file or package copied or found unchanged, for a progress display. */
  onProgress?: (done: { files: number; apps: number; bytes: number }) => void;
}

const counts = (): CswebCopyCounts => ({ copied: 0, unchanged: 0, refused: 0, bytes: 0 });

const whole = (ms: number): number => Math.floor(ms / 1000);

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

async function md5Of(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The md5 of the version of an app package in place (its snapshot holds it). */
async function storedMd5(store: Store, zip: string): Promise<string | undefined> {
  const snap = await store.fileStore.open('apps', zip);
  if (snap === undefined || snap === 'directory') return undefined;
  await snap.close();
  return snap.md5;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The writer recorded for imported files: a field writer, so Standard accounts may replace them
 * as any syncing account could on CSWeb (docs/migrating-from-csweb.md#files-and-app-packages).
 */
const IMPORT_WRITER = 'csweb-import';

/**
 * One synced file into the media area under the same path. The import writes as the operator
 * (it may replace any file: CSWeb is the source while the two run side by side) and records the
 * file as a field account's. Unchanged when sds holds a file of the same size and the same modification
 * time to the second (the copy keeps CSWeb's time), as rsync's quick check.
 */
async function importSyncedFile(
  store: Store,
  path: string,
  full: string,
  source: Stats,
  dryRun: boolean,
  out: CswebFilesResult,
): Promise<void> {
  let name: string;
  try {
    // The media area stores names in NFC; CSWeb keeps whatever form the tablet sent.
    name = mediaName(path);
  } catch (err) {
    out.files.refused++;
    out.report.push({ level: 'error', code: 'CSWEB_FILE_REFUSED', file: path, message: `${path} was not copied: ${reason(err)}` });
    return;
  }
  const row = await store.files.find(name);
  const have = await store.fileStore.stat('media', name);
  if (
    row &&
    have !== undefined &&
    have !== 'directory' &&
    have.size === source.size &&
    row.size === source.size &&
    whole(have.mtimeMs) === whole(source.mtimeMs)
  ) {
    out.files.unchanged++;
    return;
  }
  if (!dryRun) {
    try {
      await storeFile(store, name, createReadStream(full), { file: path, recordAsField: IMPORT_WRITER, mtimeMs: source.mtimeMs });
    } catch (err) {
      out.files.refused++;
      out.report.push({ level: 'error', code: 'CSWEB_FILE_REFUSED', file: path, message: `${path} was not copied: ${reason(err)}` });
      return;
    }
  }
  out.files.copied++;
  out.files.bytes += source.size;
}

/** Characters CSWeb replaces in a package's file name, and names the apps area cannot hold. */
// eslint-disable-next-line no-control-regex
const BAD_APP_NAME = /[\\/:*?"<>|\u0000-\u001f]/;

function appNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 200) return 'its name is empty or longer than 200 characters';
  if (BAD_APP_NAME.test(name)) return 'its name has a character a file name cannot hold (\\ / : * ? " < > | or a control character)';
  if (name.startsWith('.')) return 'its name starts with a dot (the apps area does not list hidden files)';
  return undefined;
}

/** Where the apps area's metadata of an imported package came from (docs/sync.md#apps). */
const APP_SOURCE = 'csweb-import';

const rfc3339 = (ms: number): string => new Date(whole(ms) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Keeps the package's `cspro_apps` metadata with the zip it describes, so `GET /api/apps` lists its
 * description and version and a download answers CSWeb's signature (docs/sync.md#apps).
 */
async function keepMetadata(store: StoreScope, app: CswebApp, zip: { size: number; md5: string; buildMs: number }): Promise<void> {
  await store.transaction((tx) =>
    tx.appPackages.save({
      name: app.name,
      description: app.description,
      version: app.version,
      files: app.files,
      signature: app.signature,
      buildTime: rfc3339(zip.buildMs),
      zipSize: zip.size,
      zipMd5: zip.md5,
      source: APP_SOURCE,
    }),
  );
}

/**
 * One package into the apps area as `<name>.zip`, its modification time set to CSWeb's build
 * time (sds lists and compares a package's build time from that time), and its `cspro_apps`
 * metadata into the store. Unchanged when sds holds a zip of the same size, build time and md5.
 */
async function importApp(store: Store, filesDir: string, app: CswebApp, dryRun: boolean, out: CswebFilesResult): Promise<void> {
  const label = `application package ${app.name}`;
  const problem = appNameProblem(app.name);
  const root = resolve(filesDir);
  const source = resolve(root, ...app.path.split('/'));
  const refuse = (code: string, message: string): void => {
    out.apps.refused++;
    out.report.push({ level: 'error', code, file: app.path, message });
  };
  if (problem !== undefined) return refuse('CSWEB_APP_REFUSED', `${label} was not copied: ${problem}`);
  if (!source.startsWith(root + sep))
    return refuse('CSWEB_APP_REFUSED', `${label} was not copied: its path ${app.path} is outside the files folder`);
  const st = await statOrUndefined(source);
  if (!st?.isFile()) return refuse('CSWEB_APP_MISSING', `${label} was not copied: ${app.path} is not in the files folder`);
  let buildMs = app.buildTime === null ? Number.NaN : Date.parse(app.buildTime);
  if (Number.isNaN(buildMs)) {
    buildMs = st.mtimeMs;
    out.report.push({
      level: 'warn',
      code: 'CSWEB_APP_BUILD_TIME_MISSING',
      file: app.path,
      message: `${label} has no build time in cspro_apps; the time of its zip file is used`,
    });
  }
  const zip = `${app.name}.zip`;
  const have = await store.fileStore.stat('apps', zip);
  const sourceMd5 = await md5Of(source);
  if (
    have !== undefined &&
    have !== 'directory' &&
    have.size === st.size &&
    whole(have.mtimeMs) === whole(buildMs) &&
    (await storedMd5(store, zip)) === sourceMd5
  ) {
    // The zip is there as it is in CSWeb; its metadata is kept again (a home from before it was kept, or a changed row).
    if (!dryRun) await keepMetadata(store, app, { size: st.size, md5: sourceMd5, buildMs });
    out.apps.unchanged++;
    return;
  }
  if (!dryRun) {
    try {
      const staged = await store.fileStore.stage('apps', zip, createReadStream(source), { file: `apps/${app.name}.zip` });
      // The package gets CSWeb's build time as it is put in place, never the copy's; its metadata
      // is saved after the zip (on PostgreSQL with it): saved first, it would describe a zip not
      // there yet (and be ignored).
      await store.fileStore.commit(staged, {
        mtimeMs: buildMs,
        record: (tx) => keepMetadata(tx, app, { size: staged.size, md5: staged.md5, buildMs }),
      });
    } catch (err) {
      return refuse('CSWEB_APP_REFUSED', `${label} was not copied: ${reason(err)}`);
    }
  }
  out.apps.copied++;
  out.apps.bytes += st.size;
}

/**
 * Brings CSWeb's synced files and application packages into sds: every synced file of CSWeb's
 * files folder into the media area under the same path, and every package of `cspro_apps` into
 * the apps area. Binary case items and cached partial update packages are counted and reported,
 * not copied. Copies stream and are durable before the next begins; a re-run copies only what
 * is new or changed, and a file sds refuses is reported while the rest go on
 * (docs/migrating-from-csweb.md#files-and-app-packages).
 */
export async function importCswebFiles(
  store: Store,
  conn: Connection,
  filesDir: string,
  opts: CswebFilesOptions = {},
): Promise<CswebFilesResult> {
  const dryRun = opts.dryRun === true;
  const dir = await statOrUndefined(filesDir);
  if (!dir?.isDirectory()) {
    throw new AppError('CSWEB_FILES_FOLDER_MISSING', `CSWeb's files folder ${filesDir} does not exist or is not a folder`, {
      file: filesDir,
    });
  }
  try {
    await access(filesDir, constants.R_OK | constants.X_OK);
  } catch (err) {
    throw new AppError('CSWEB_FILES_FOLDER_MISSING', `CSWeb's files folder ${filesDir} cannot be read: ${reason(err)}`, { file: filesDir });
  }
  let apps: CswebApp[];
  try {
    apps = await readCswebApps(conn);
  } catch (err) {
    throw new AppError(
      'CSWEB_APPS_UNREADABLE',
      `cannot read the cspro_apps table of the CSWeb database: ${reason(err)}`,
      {},
      { cause: err },
    );
  }
  const out: CswebFilesResult = { dryRun, files: counts(), apps: counts(), binaryItems: 0, appUpdates: 0, report: [] };
  const progress = (): void =>
    opts.onProgress?.({
      files: out.files.copied + out.files.unchanged,
      apps: out.apps.copied + out.apps.unchanged,
      bytes: out.files.bytes + out.apps.bytes,
    });
  const zips = new Set<string>();
  for await (const e of walkCswebFiles(filesDir)) {
    switch (e.kind) {
      case 'synced':
        await importSyncedFile(store, e.path, e.full, e.stats, dryRun, out);
        progress();
        break;
      case 'app':
        zips.add(e.path);
        break;
      case 'app-update':
        out.appUpdates++;
        break;
      case 'binary-item':
        out.binaryItems++;
        break;
      case 'unreadable':
        out.files.refused++;
        out.report.push({
          level: 'error',
          code: 'CSWEB_FILE_REFUSED',
          file: e.path,
          message: `${e.path} could not be read (${e.why}); not copied`,
        });
        break;
      case 'special':
        out.files.refused++;
        out.report.push({
          level: 'error',
          code: 'CSWEB_FILE_REFUSED',
          file: e.path,
          message: `${e.path} was not copied: it is not a regular file (a symbolic link, socket or device)`,
        });
        break;
    }
  }
  for (const app of apps) {
    zips.delete(app.path);
    await importApp(store, filesDir, app, dryRun, out);
    progress();
  }
  for (const path of zips) {
    out.report.push({
      level: 'warn',
      code: 'CSWEB_APP_UNLISTED',
      file: path,
      message: `${path} is in CSWeb's apps folder but no cspro_apps row names it (CSWeb does not serve it); not copied`,
    });
  }
  if (out.appUpdates > 0) {
    out.report.push({
      level: 'warn',
      code: 'CSWEB_APP_UPDATES_SKIPPED',
      file: 'apps/updates',
      message: `${out.appUpdates} cached partial update package(s) under apps/updates skipped: the whole package is always sent to the client`,
    });
  }
  return out;
}
