/**
 * The log files of breakout jobs (`job-<id>.log`) and schedule runs (`<dictionary>_<time>.log`)
 * (docs/logs.md#job-and-run-log-files). A job or run writes its log to the home's
 * `logs/breakout/` on the machine it runs on, line by line; when it ends, the finished log is put
 * in the store's file store, area `logs`, under the same name. A SQLite store's file store keeps
 * that area in `logs/breakout/` itself, so there the file is in place already; a PostgreSQL
 * store's keeps it in the database, so that every node of the store reads it, and the local file
 * is removed once stored. Readers look in the file store first, then in the local folder (a job
 * still running on this machine).
 */
import { createReadStream, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store/open-store.js';

/** The file store area of the finished logs. */
const AREA = 'logs';

/** A log file of a job or a run: its name, time and size. */
export interface StoredLogFile {
  name: string;
  mtimeMs: number;
  size: number;
}

/** Name of a job's log file (docs/logs.md#job-and-run-log-files). */
export function jobLogName(jobId: string): string {
  return `job-${jobId}.log`;
}

/** The name of a log of `logs/breakout/`: a bare file name, never a path nor a hidden file; USAGE otherwise. */
function checkedName(name: string): string {
  if (name === '' || name.startsWith('.') || /[/\\\0]/.test(name))
    throw new AppError('USAGE', `"${name}" is not the name of a job or run log file (job-<id>.log, <dictionary>_<time>.log)`, {
      field: 'file',
    });
  return name;
}

/** Path of a log in the home's logs/breakout/ on this machine. */
function localPath(store: Store, name: string): string {
  return join(store.home.breakoutLogs, checkedName(name));
}

/** Whether the store's file store keeps the logs in this home's logs/breakout/ (a SQLite store). */
function storedInHome(store: Store): boolean {
  const folder = store.fileStore.homeFolder(AREA);
  return folder !== undefined && resolve(folder) === resolve(store.home.breakoutLogs);
}

/**
 * Puts the finished log `name` of this machine's logs/breakout/ in the store's file store and
 * removes the local file once it is stored; nothing to do when the file store is that folder or
 * the file is not on this machine. Never throws: a log that could not be stored stays local and
 * the reason is returned (the caller says so in its own log).
 */
export async function storeFinishedLog(store: Store, name: string): Promise<string | undefined> {
  if (storedInHome(store)) return undefined;
  try {
    const path = localPath(store, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) return undefined;
    const staged = await store.fileStore.stage(AREA, name, createReadStream(path), { file: name });
    await store.fileStore.commit(staged, { mtimeMs: st.mtimeMs });
    rmSync(path, { force: true });
    return undefined;
  } catch (err) {
    return `the log ${name} could not be put in the store and stays in ${store.home.breakoutLogs}: ${(err as Error).message}`;
  }
}

/**
 * The content of the log `name`: from the store's file store, else from this machine's
 * logs/breakout/ (a job or run still running here); undefined when neither has it.
 */
async function openLogFile(store: Store, name: string): Promise<Readable | undefined> {
  const path = localPath(store, name);
  if (!storedInHome(store)) {
    const snap = await store.fileStore.open(AREA, name);
    if (snap === 'directory') return undefined;
    if (snap) return snap.stream();
  }
  // Read as it is now, while its job may still append to it.
  return existsSync(path) && statSync(path).isFile() ? createReadStream(path) : undefined;
}

/**
 * The logs of the store's file store that are not in this home's logs/breakout/ (none with a
 * SQLite store, whose file store is that folder): what retention looks at besides the local files.
 */
export async function storedLogFiles(store: Store): Promise<StoredLogFile[]> {
  if (storedInHome(store)) return [];
  const out: StoredLogFile[] = [];
  for (const e of (await store.fileStore.list(AREA, '')) ?? []) {
    if (e.type !== 'file') continue;
    const st = await store.fileStore.stat(AREA, e.name);
    if (st && st !== 'directory') out.push({ name: e.name, mtimeMs: st.mtimeMs, size: st.size });
  }
  return out;
}

/** The log files of this machine's logs/breakout/ (a job's while it runs; every log of a SQLite store). */
export function localLogFiles(store: Store): StoredLogFile[] {
  let names: string[];
  try {
    names = readdirSync(store.home.breakoutLogs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AppError(
      'IO_ERROR',
      `cannot list ${store.home.breakoutLogs}: ${(err as Error).message}`,
      { file: store.home.breakoutLogs },
      { cause: err },
    );
  }
  const out: StoredLogFile[] = [];
  for (const name of names) {
    try {
      const s = statSync(join(store.home.breakoutLogs, name));
      if (s.isFile()) out.push({ name, mtimeMs: s.mtimeMs, size: s.size });
    } catch {
      // Deleted meanwhile (another prune, a purge): nothing to do with it.
    }
  }
  return out;
}

/**
 * Removes the log `name` wherever it is: from the store's file store and from this machine's
 * logs/breakout/. False when neither had it.
 */
export async function removeLogFile(store: Store, name: string): Promise<boolean> {
  const path = localPath(store, name);
  let removed = storedInHome(store) ? false : await store.fileStore.remove(AREA, name);
  try {
    rmSync(path);
    removed = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new AppError('IO_ERROR', `cannot delete the log file ${path}: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  return removed;
}

/** Whether a log of this name is in the store's file store or in this machine's logs/breakout/. */
export async function logFileExists(store: Store, name: string): Promise<boolean> {
  if (existsSync(localPath(store, name))) return true;
  return !storedInHome(store) && (await store.fileStore.stat(AREA, name)) !== undefined;
}

/**
 * The log `sds logs show` prints (docs/logs.md#job-and-run-log-files): `given` is a log file name
 * (`job-<id>.log`, a run's `<dictionary>_<time>.log`) or a job id. NOT_FOUND when neither the
 * store nor this machine has it.
 */
export async function showLogFile(store: Store, given: string): Promise<{ file: string; content: Readable }> {
  const file = given.endsWith('.log') ? given : jobLogName(given);
  const content = await openLogFile(store, file);
  if (!content) throw new AppError('NOT_FOUND', `no log file ${file} in the store or in ${store.home.breakoutLogs}`, { file });
  return { file, content };
}
