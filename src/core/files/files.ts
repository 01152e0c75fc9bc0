import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { FileSnapshot, Present } from '../../store/file-store-contract.js';
import type { FileRow } from '../../store/files-repo.js';
import type { Role } from '../../store/users-repo.js';
import { AppError } from '../../shared/errors.js';
import { contentTypeOf, mediaName } from './media-path.js';

/** File metadata (docs/http-api.md#routes: at least name and size). */
export interface FileInfo {
  name: string;
  size: number;
  content_type: string;
  sha256: string;
  created_at: string;
  updated_at: string;
}

/** The account writing a file over HTTP; absent for the operator's `sds files put`. */
export interface FileWriter {
  username: string;
  role: Role;
  /** True when the account holds files.write (docs/sync.md, "Who may replace a file"). */
  filesWrite: boolean;
}

export interface PutFileOptions {
  writer?: FileWriter;
  /** Refused with 413 PAYLOAD_TOO_LARGE as soon as more bytes arrive (default: no limit). */
  maxBytes?: number;
  /** The md5 (hex) the sender announced (`Content-MD5`); another md5 is refused, the old version kept. */
  expectedMd5?: string;
  /** Names the file in errors (default: the media name). */
  file?: string;
  /**
   * Records the file as written by a field account of this name, whoever wrote it (the writer's
   * overwrite rule still applies to the write itself): an import that must leave the file
   * replaceable by field accounts, as it was where it came from.
   */
  recordAsField?: string;
  /** The modification time the new version gets (a file copied with its time); default: when it was written. */
  mtimeMs?: number;
}

/** A stored file as its writer saw it: the metadata, plus the md5 and time of the version written. */
export interface StoredFile {
  info: FileInfo;
  md5: string;
  mtimeMs: number;
}

function infoOf(f: FileRow): FileInfo {
  return { name: f.name, size: f.size, content_type: f.contentType, sha256: f.sha256, created_at: f.createdAt, updated_at: f.updatedAt };
}

async function info(store: StoreScope, name: string): Promise<FileInfo> {
  const f = await store.files.find(name);
  if (!f) throw new AppError('NOT_FOUND', `file ${name} not found in the media area`, { file: name });
  return infoOf(f);
}

/**
 * The overwrite rule (docs/sync.md, "Who may replace a file"): an account with files.write
 * (API, Administrator) and the operator may write any file; a field account (files.sync only)
 * may create a file and replace a file that a field account wrote, but not one written by an
 * account with files.write, by the operator, or put in the folder by hand (a file on disk
 * without metadata), nor one from before the rule (migration 0014).
 */
export function mayReplace(existing: FileRow | undefined, onDisk: boolean, writer: FileWriter | undefined): boolean {
  if (writer === undefined || writer.filesWrite) return true;
  if (existing) return !existing.office;
  return !onDisk;
}

function refuseReplace(file: string, writer: FileWriter): AppError {
  return new AppError(
    'AUTH-004',
    `the ${writer.role} role may not replace ${file}: it was put there by an account with files.write or by the operator (a field account may create files and replace those field accounts synced)`,
    { oauth_error: 'access_denied', permission: 'files.write', file },
  );
}

/** The overwrite rule and the folder check, against what is under the name now. */
async function checkReplace(store: StoreScope, name: string, present: Present, opts: PutFileOptions): Promise<void> {
  const file = opts.file ?? name;
  if (present === 'directory') throw new AppError('PATH_INVALID', `${file} is a folder, not a file`, { file });
  if (!mayReplace(await store.files.find(name), present !== undefined, opts.writer)) throw refuseReplace(file, opts.writer!);
}

/**
 * Stores content as a media file, replacing any of the same name atomically through the store's
 * file store (file-store-contract.ts): a reader gets the old or the new version whole, and the
 * new one is durable when this resolves. A refused or failed upload (size limit, md5, overwrite
 * rule, I/O) leaves the previous version and nothing of the new one. The overwrite rule is
 * checked before reading and again in the name's turn, just before the version is put in place;
 * its metadata row is written in that turn too (on PostgreSQL in the same transaction).
 */
export async function storeFile(
  store: Store,
  name: string,
  content: AsyncIterable<Buffer | string>,
  opts: PutFileOptions = {},
): Promise<StoredFile> {
  name = mediaName(name);
  const file = opts.file ?? name;
  await checkReplace(store, name, await store.fileStore.present('media', name, file), opts);
  const staged = await store.fileStore.stage('media', name, content, { file, maxBytes: opts.maxBytes, expectedMd5: opts.expectedMd5 });
  const office = opts.recordAsField === undefined && (opts.writer === undefined || opts.writer.filesWrite);
  const { result } = await store.fileStore.commit(staged, {
    mtimeMs: opts.mtimeMs,
    check: (scope, present) => checkReplace(scope, name, present, opts),
    record: async (tx) => {
      await tx.files.save({
        name,
        size: staged.size,
        sha256: staged.sha256,
        contentType: contentTypeOf(name, staged.head),
        writtenBy: opts.recordAsField ?? opts.writer?.username ?? null,
        office,
      });
      return info(tx, name);
    },
  });
  return { info: result!, md5: staged.md5, mtimeMs: opts.mtimeMs ?? staged.mtimeMs };
}

/** Stores content as a media file (see storeFile); returns its metadata. */
export async function putFile(
  store: Store,
  name: string,
  content: AsyncIterable<Buffer | string>,
  opts: PutFileOptions = {},
): Promise<FileInfo> {
  return (await storeFile(store, name, content, opts)).info;
}

/** Metadata of one media file. */
export async function fileInfo(store: Store, name: string): Promise<FileInfo> {
  return info(store, mediaName(name));
}

/** Metadata of every media file, by name. */
export async function listFiles(store: Store): Promise<FileInfo[]> {
  return (await store.files.list()).map(infoOf);
}

/**
 * Opens one version of a media file for reading. The size, sha256 and content type returned
 * describe the bytes the snapshot streams (all from one open descriptor), even while the file is
 * being replaced; the content type is the extension's only when the bytes carry its signature.
 */
export async function openFile(store: Store, name: string): Promise<{ info: FileInfo; snapshot: FileSnapshot }> {
  name = mediaName(name);
  const meta = await info(store, name);
  const snapshot = await store.fileStore.open('media', name);
  if (snapshot === undefined || snapshot === 'directory') {
    throw new AppError('NOT_FOUND', `file ${name} is registered but missing from the media area`, { file: name });
  }
  return { info: { ...meta, size: snapshot.size, sha256: snapshot.sha256, content_type: contentTypeOf(name, snapshot.head) }, snapshot };
}

/**
 * Deletes a media file (durably) and its metadata, in the turn of the name's writers: none puts a
 * version in place between the check and the removal.
 */
export async function removeFile(store: Store, name: string): Promise<{ message: string; name: string }> {
  name = mediaName(name);
  await store.fileStore.remove('media', name, {
    check: async (scope) => {
      await info(scope, name);
    },
    record: async (tx) => {
      await tx.files.remove(name);
    },
  });
  return { message: `File ${name} removed`, name };
}
