/**
 * The file store's contract (docs/architecture.md#the-file-store-contract): where the bytes of
 * media and synced files, application packages and binary case items live, whatever holds them.
 * A SQLite store keeps them in the home's folders (`file-store/local/`); a PostgreSQL store keeps
 * them in the database, content-addressed and chunked (`file-store/postgresql/`), so every node of
 * the store sees them. Both put a new version in place atomically (a reader gets the old version or
 * the new one whole; a refused or failed write leaves the old one), check size limits and
 * `Content-MD5` while the bytes stream, and never hold a whole file in memory.
 */
import type { Readable } from 'node:stream';
import type { StoreScope } from './store-scope-contract.js';

/** The first bytes of a file kept for the content-type check (media-path.ts: contentTypeOf). */
export const HEAD_BYTES = 12;

/**
 * The areas of the file store: `media` (media and synced files, by media name), `apps`
 * (`<name>.zip`), `binary-items` (`<dictionary, lower case>/<md5>`), `logs` (the finished logs of
 * breakout jobs and schedule runs, `job-<id>.log` and `<dictionary>_<time>.log`: docs/logs.md).
 */
export type FileArea = 'media' | 'apps' | 'binary-items' | 'logs';

/**
 * One version of a file, opened once: its size, hashes and first bytes describe exactly the
 * bytes `stream()` sends, even while a writer replaces the file.
 */
export interface FileSnapshot {
  size: number;
  md5: string;
  sha256: string;
  /** The first bytes (up to HEAD_BYTES), for the content-type check. */
  head: Buffer;
  mtimeMs: number;
  /** The bytes, once; releases what the snapshot holds when done or destroyed. */
  stream(): Readable;
  /** Releases the snapshot when the bytes are not wanted (a 304, an error). */
  close(): Promise<void>;
}

/** How to write a new version aside. */
export interface StageOptions {
  /** Names the file in errors (the name the client used). */
  file: string;
  /** Refused with 413 PAYLOAD_TOO_LARGE as soon as more bytes than this arrive. */
  maxBytes?: number;
  /** The md5 (hex) the sender announced; another md5 is refused with CHECKSUM_MISMATCH. */
  expectedMd5?: string;
}

/** A new version written aside, durable, not yet in place. */
export interface StagedFile {
  readonly area: FileArea;
  readonly name: string;
  /** The name of StageOptions.file. */
  readonly file: string;
  readonly size: number;
  readonly md5: string;
  readonly sha256: string;
  readonly head: Buffer;
  /** When it was written (the modification time it gets unless the commit sets another). */
  readonly mtimeMs: number;
}

/** What is under a name when a commit checks it: a file, a folder (names under it), or nothing. */
export type Present = 'file' | 'directory' | undefined;

/** What putting a staged version in place does besides. */
export interface CommitOptions<T> {
  /** The modification time to record (a package's build time, a copied file's time); default: when it was written. */
  mtimeMs?: number;
  /**
   * Keep a version already under the name and discard the staged one (content-addressed names,
   * whose bytes can only be the same): the result's `written` is then false.
   */
  keepExisting?: boolean;
  /**
   * Called in the name's turn, after every other writer of the name, just before the version is
   * put in place: throws to refuse (the staged version is then discarded). `present` says what is
   * under the name now.
   */
  check?: (scope: StoreScope, present: Present) => Promise<void>;
  /**
   * Records the metadata of the new version, in a store transaction: on PostgreSQL the same one
   * that puts the version in place, on the local store the one right after the rename.
   */
  record?: (tx: StoreScope) => Promise<T>;
}

/** A stale temporary upload removed or kept by FileStore.removeStale. */
export interface StaleUploadsReport {
  /** What was removed: paths relative to the home, or `upload <id>` in the database. */
  removed: string[];
  /** Kept: a live writer may still be writing them. */
  kept: number;
  /** What could not be read or removed, and why. */
  failed: { path: string; reason: string }[];
}

/** What deciding about a temporary upload needs (part-name.ts: isStalePart). */
export interface StaleUploadsRule {
  now: number;
  /** Untouched this long, an upload is stale whoever wrote it. */
  maxAgeMs: number;
  /** The deciding process. */
  selfPid: number;
  /** Whether a process of this pid runs on this machine. */
  alive: (pid: number) => boolean;
}

/** An entry of a folder of an area. */
export interface FileEntry {
  name: string;
  type: 'file' | 'directory';
}

/** Where the bytes of a store's files live (see the file's comment). */
export interface FileStore {
  /**
   * Writes `content` aside as a candidate version of `name`, hashing and counting as it streams;
   * refused at the chunk that crosses `maxBytes`, or when its md5 is not `expectedMd5`, leaving
   * nothing behind. Put it in place with `commit`, or drop it with `discard`.
   */
  stage(area: FileArea, name: string, content: AsyncIterable<Buffer | string>, opts: StageOptions): Promise<StagedFile>;
  /**
   * Puts a staged version in place under its name, atomically, in the turn of the name's writers
   * (see CommitOptions); returns what `record` returned and whether the version was written.
   */
  commit<T>(staged: StagedFile, opts?: CommitOptions<T>): Promise<{ result: T | undefined; written: boolean }>;
  /** Drops a staged version that will not be put in place. */
  discard(staged: StagedFile): Promise<void>;
  /** Runs `fn` on a local file holding the staged bytes (reading a zip needs random access). */
  withLocalCopy<T>(staged: StagedFile, fn: (path: string) => Promise<T>): Promise<T>;
  /** Opens the version in place under a name; `'directory'` when names are under it, undefined when nothing is. */
  open(area: FileArea, name: string): Promise<FileSnapshot | 'directory' | undefined>;
  /** What is under a name now; PATH_INVALID when a folder of it is a file (`file` names it in the error). */
  present(area: FileArea, name: string, file: string): Promise<Present>;
  /** Size and time of the version in place, without reading it. */
  stat(area: FileArea, name: string): Promise<{ size: number; mtimeMs: number } | 'directory' | undefined>;
  /** The files and folders directly under `folder` ('' for the area itself), undefined when it is no folder. */
  list(area: FileArea, folder: string): Promise<FileEntry[] | undefined>;
  /**
   * Removes the file under a name, durably, in the turn of its writers: `check` runs first (throws
   * to refuse), `record` in the transaction that (on PostgreSQL) removes it. False when there was none.
   */
  remove<T>(
    area: FileArea,
    name: string,
    opts?: { check?: (scope: StoreScope) => Promise<void>; record?: (tx: StoreScope) => Promise<T> },
  ): Promise<boolean>;
  /** Removes the temporary uploads a crash left behind (docs/sync.md#files, "Temporary files"). Never throws. */
  removeStale(rule: StaleUploadsRule): Promise<StaleUploadsReport>;
  /**
   * The home folder that holds an area's files, when this store keeps them there (the local
   * store: a file written to that folder is in the store already); undefined when they live
   * elsewhere (the database), where a file written in the home is put with `stage` and `commit`.
   */
  homeFolder(area: FileArea): string | undefined;
}

/** What putFileInStore writes besides the bytes. */
export interface PutFileOptions<T> extends Omit<StageOptions, 'file'> {
  /** Names the file in errors (default: the name). */
  file?: string;
  /** The modification time of the version (a package's build time, a copied file's time); default: now. */
  mtimeMs?: number;
  /** Keep a version already under the name (content-addressed names): `written` is then false. */
  keepExisting?: boolean;
  /** Metadata written with the version (on PostgreSQL in the same transaction), see CommitOptions. */
  record?: (tx: StoreScope) => Promise<T>;
}

/**
 * Puts a stream of bytes under a name of an area of a store's file store, in one call: staged
 * while it streams (checked against `maxBytes` and `expectedMd5`), then put in place atomically
 * with its time and metadata. For writers without an overwrite rule: binary items, and
 * `sds store copy` bringing a home's files into a PostgreSQL store (`store.fileStore` of the
 * target). Returns the version written (its size, md5, sha256) and whether it was written.
 */
export async function putFileInStore<T>(
  fileStore: FileStore,
  area: FileArea,
  name: string,
  content: AsyncIterable<Buffer | string>,
  opts: PutFileOptions<T> = {},
): Promise<{ staged: StagedFile; result: T | undefined; written: boolean }> {
  const staged = await fileStore.stage(area, name, content, {
    file: opts.file ?? name,
    maxBytes: opts.maxBytes,
    expectedMd5: opts.expectedMd5,
  });
  const { result, written } = await fileStore.commit(staged, {
    mtimeMs: opts.mtimeMs,
    keepExisting: opts.keepExisting,
    record: opts.record,
  });
  return { staged, result, written };
}
