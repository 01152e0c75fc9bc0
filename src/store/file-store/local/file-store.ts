/**
 * The local file store (docs/architecture.md#the-file-store-contract): the bytes in the home's
 * folders (`files/media/`, `files/apps/`, `files/binary-items/`, and `logs/breakout/` for the
 * finished logs of jobs and schedule runs), the only file store of a SQLite
 * store. A new version is written to a hidden temporary file beside its name and fsynced, renamed
 * over the name and the folder fsynced; writers of one name take turns in this process, and across
 * the processes of the home in the store's write transaction.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { HomePaths } from '../../../shared/home.js';
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
import type { Store, StoreScope } from '../../store-contract.js';
import { commitStaged, discardStaged, removeDurably, setTimeDurably, stageFile, type StagedFile as StagedOnDisk } from './atomic-write.js';
import { openSnapshot } from './file-snapshot.js';
import { removeStaleParts } from './stale-parts.js';

/** A staged version of the local store: the contract's, and its temporary file. */
type LocalStaged = StagedFile & StagedOnDisk;

const codeOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** The folder of each area in a home. */
function areaFolder(home: HomePaths, area: FileArea): string {
  const folders: Record<FileArea, string> = {
    media: home.media,
    apps: home.apps,
    'binary-items': home.binaryItems,
    logs: home.breakoutLogs,
  };
  return folders[area];
}

/** What is under `path` now; PATH_INVALID when a folder of it is a file. */
function presentAt(path: string, file: string): Present {
  let st: Stats | undefined;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') throw new AppError('PATH_INVALID', `a folder of ${file} is a file`, { file });
    throw new AppError('IO_ERROR', `cannot read ${file}: ${codeOf(err)}`, { file }, { cause: err });
  }
  return st === undefined ? undefined : st.isDirectory() ? 'directory' : 'file';
}

/** The files and folders a folder lists (see FileStore.list), undefined when it is no folder. */
function listFolder(full: string): FileEntry[] | undefined {
  try {
    return (
      readdirSync(full, { withFileTypes: true })
        // Hidden names (the writer's temporary files among them) are nobody's business.
        .filter((e) => !e.name.startsWith('.') && !e.name.endsWith('.part') && (e.isFile() || e.isDirectory()))
        .map((e) => ({ name: e.name, type: e.isDirectory() ? 'directory' : 'file' }))
    );
  } catch {
    return undefined; // not a folder (missing, a file, a folder of it a file)
  }
}

/** A file of an area of a home's folders, as the local file store lists and serves it. */
export interface LocalFile {
  area: FileArea;
  /** Its name in the area (`photos/house 1.jpg`). */
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * Every file of an area of `home` that the local file store lists (hidden names and temporary
 * `.part` files left out, as FileStore.list does), folders walked, sorted by name: what a
 * SQLite home serves, with or without metadata (`sds store copy`, `sds store verify`). Reads no
 * file's bytes.
 */
export function localFilesOf(home: HomePaths, area: FileArea): LocalFile[] {
  const out: LocalFile[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const e of listFolder(dir) ?? []) {
      const path = join(dir, e.name);
      const name = prefix === '' ? e.name : `${prefix}/${e.name}`;
      if (e.type === 'directory') walk(path, name);
      else {
        const st = statSync(path);
        out.push({ area, name, path, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk(areaFolder(home, area), '');
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Writers of one path in this process take turns from their last check to the metadata, so the
 * rule and the row match the file in place; they wait here rather than on the store's write lock.
 */
const turns = new Map<string, Promise<unknown>>();

async function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (turns.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => undefined);
  turns.set(key, tail);
  try {
    return await run;
  } finally {
    if (turns.get(key) === tail) turns.delete(key);
  }
}

/** The files of a home, in its folders. */
export class LocalFileStore implements FileStore {
  constructor(
    private readonly home: HomePaths,
    private readonly store: Store,
  ) {}

  /** The path of a name of an area; PATH_INVALID when it would leave the area. */
  private pathOf(area: FileArea, name: string): string {
    const root = resolve(areaFolder(this.home, area));
    const full = resolve(root, ...name.split('/'));
    if (!full.startsWith(root + sep)) throw new AppError('PATH_INVALID', `file name "${name}" escapes its area`, { file: name });
    return full;
  }

  async stage(area: FileArea, name: string, content: AsyncIterable<Buffer | string>, opts: StageOptions): Promise<StagedFile> {
    const staged = await stageFile(this.pathOf(area, name), content, opts);
    return { ...staged, area, name } satisfies LocalStaged;
  }

  async commit<T>(staged: StagedFile, opts: CommitOptions<T> = {}): Promise<{ result: T | undefined; written: boolean }> {
    const local = staged as LocalStaged;
    return inTurn(local.target, async () => {
      // Set on the staged file before the rename, so the name never shows the write's time.
      if (opts.mtimeMs !== undefined) {
        try {
          await setTimeDurably(local.tmp, opts.mtimeMs);
        } catch (err) {
          await discardStaged(local);
          throw new AppError('IO_ERROR', `could not store ${local.file}: ${codeOf(err)}`, { file: local.file }, { cause: err });
        }
      }
      // The turn across the processes of one home (several `sds serve` or workers): the check, the
      // rename and the row in one IMMEDIATE store transaction, which SQLite gives to one process at
      // a time, so two writers of a name anywhere are ordered as in one process. Nothing in it
      // lets the event loop turn (commitStaged is synchronous; the repositories answer at once)
      // (docs/decisions.md, "Per-account limits across nodes (issue 29)").
      let kept = false;
      try {
        return await this.store.transaction(async (tx) => {
          const present = presentAt(local.target, local.file);
          await opts.check?.(tx, present);
          if (opts.keepExisting === true && present === 'file') {
            kept = true;
            return { result: undefined, written: false };
          }
          commitStaged(local);
          // After the rename: a row saved first would describe a version not there yet.
          const result = opts.record ? await opts.record(tx) : undefined;
          return { result, written: true };
        });
      } catch (err) {
        await discardStaged(local); // nothing when the rename was done
        throw err;
      } finally {
        if (kept) await discardStaged(local);
      }
    });
  }

  async discard(staged: StagedFile): Promise<void> {
    await discardStaged(staged as LocalStaged);
  }

  async withLocalCopy<T>(staged: StagedFile, fn: (path: string) => Promise<T>): Promise<T> {
    return fn((staged as LocalStaged).tmp);
  }

  async open(area: FileArea, name: string): Promise<FileSnapshot | 'directory' | undefined> {
    return openSnapshot(this.pathOf(area, name), name);
  }

  async present(area: FileArea, name: string, file: string): Promise<Present> {
    return presentAt(this.pathOf(area, name), file);
  }

  async stat(area: FileArea, name: string): Promise<{ size: number; mtimeMs: number } | 'directory' | undefined> {
    let st: Stats | undefined;
    try {
      st = statSync(this.pathOf(area, name), { throwIfNoEntry: false });
    } catch {
      return undefined; // ENOTDIR: a folder of the name is a file
    }
    if (st === undefined) return undefined;
    return st.isDirectory() ? 'directory' : st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  }

  async list(area: FileArea, folder: string): Promise<FileEntry[] | undefined> {
    return listFolder(folder === '' ? areaFolder(this.home, area) : this.pathOf(area, folder));
  }

  async remove<T>(
    area: FileArea,
    name: string,
    opts: { check?: (scope: StoreScope) => Promise<void>; record?: (tx: StoreScope) => Promise<T> } = {},
  ): Promise<boolean> {
    const path = this.pathOf(area, name);
    // In the turn of the name's writers of every process on the home, as commit.
    return inTurn(path, () =>
      this.store.transaction(async (tx) => {
        await opts.check?.(tx);
        const present = presentAt(path, name) === 'file';
        try {
          if (present) removeDurably(path);
        } catch (err) {
          throw new AppError('IO_ERROR', `could not remove ${name}: ${codeOf(err)}`, { file: name }, { cause: err });
        }
        if (opts.record) await opts.record(tx);
        return present;
      }),
    );
  }

  async removeStale(rule: StaleUploadsRule): Promise<StaleUploadsReport> {
    return removeStaleParts(this.home.root, dirname(this.home.media), rule);
  }

  homeFolder(area: FileArea): string {
    return areaFolder(this.home, area);
  }
}
