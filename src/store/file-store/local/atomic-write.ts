import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../../shared/errors.js';
import { partName } from './part-name.js';
import { UploadDigest } from '../upload-digest.js';

/** A new version written aside, durable, not yet in place. */
export interface StagedFile {
  /** The temporary file, in the target's folder. */
  tmp: string;
  target: string;
  /** The name of StageOptions.file. */
  file: string;
  size: number;
  md5: string;
  sha256: string;
  head: Buffer;
  /** Modification time of the written file (kept by the rename). */
  mtimeMs: number;
}

export interface StageOptions {
  /** Names the file in errors (the name the client used). */
  file: string;
  /** Refused with 413 PAYLOAD_TOO_LARGE as soon as more bytes than this arrive. */
  maxBytes?: number;
  /** The md5 (hex) the sender announced; another md5 is refused with CHECKSUM_MISMATCH. */
  expectedMd5?: string;
}

/** fsyncs a folder, so a rename or a new entry in it survives a power cut. */
async function syncFolder(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function makeFolders(folder: string, file: string): Promise<void> {
  let first: string | undefined;
  try {
    first = await mkdir(folder, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new AppError('PATH_INVALID', `a folder of ${file} is a file`, { file });
    throw err;
  }
  if (first === undefined) return;
  // New folders: each one's entry in its parent must be durable too, from the deepest up.
  for (let f = folder; ; f = dirname(f)) {
    await syncFolder(f);
    if (f === first) break;
  }
  await syncFolder(dirname(first));
}

/**
 * Writes `content` to a temporary file beside `target` (a hidden name the media area never
 * lists or serves, naming this process: part-name.ts), hashing and counting as it goes, then
 * fsyncs it. The size limit is checked per chunk, so an oversized body is refused at the chunk
 * that crosses it; on any failure the temporary file is removed and nothing else has changed.
 * Put it in place with commitStaged.
 */
export async function stageFile(target: string, content: AsyncIterable<Buffer | string>, opts: StageOptions): Promise<StagedFile> {
  const folder = dirname(target);
  const tmp = join(folder, partName(basename(target), process.pid, randomBytes(6).toString('hex')));
  const digest = new UploadDigest(opts);
  let fh: FileHandle | undefined;
  try {
    await makeFolders(folder, opts.file);
    fh = await open(tmp, 'wx', 0o644);
    for await (const part of content) await fh.write(digest.add(part));
    const facts = digest.finish();
    await fh.sync();
    const { mtimeMs } = await fh.stat();
    await fh.close();
    fh = undefined;
    return { tmp, target, file: opts.file, ...facts, mtimeMs };
  } catch (err) {
    await fh?.close().catch(() => undefined);
    await rm(tmp, { force: true });
    if (err instanceof AppError) throw err;
    throw new AppError(
      'IO_ERROR',
      `could not store ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { file: opts.file },
      { cause: err },
    );
  }
}

/**
 * Renames a staged file over its target (atomic: a reader opens the old version or the new one,
 * whole) and fsyncs the folder, so the new version is durable when this returns. Synchronous on
 * purpose: it runs inside the store's write transaction, the turn of the name's writers across the
 * processes of a home, and must not let the event loop turn while that lock is held
 * (docs/decisions.md, "Per-account limits across nodes (issue 29)").
 */
export function commitStaged(staged: StagedFile): void {
  try {
    renameSync(staged.tmp, staged.target);
    const fd = openSync(dirname(staged.target), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    rmSync(staged.tmp, { force: true });
    throw new AppError(
      'IO_ERROR',
      `could not put ${staged.file} in place: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { file: staged.file },
      { cause: err },
    );
  }
}

/** Removes a staged file that will not be put in place. */
export async function discardStaged(staged: StagedFile): Promise<void> {
  await rm(staged.tmp, { force: true });
}

/** Removes a file and fsyncs its folder, so the removal survives a power cut once this returns. */
export function removeDurably(path: string): void {
  rmSync(path, { force: true });
  let fd: number;
  try {
    fd = openSync(dirname(path), 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // the folder is gone too: nothing to make durable
    throw err;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Sets a file's modification time and fsyncs the file, so the time survives a power cut with the
 * content: where a time carries meaning (a package's build time, a copied file's time that the
 * next run compares), it must be as durable as the bytes.
 */
export async function setTimeDurably(path: string, mtimeMs: number): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.utimes(new Date(), new Date(mtimeMs));
    await fh.sync();
  } finally {
    await fh.close();
  }
}
