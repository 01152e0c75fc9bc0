/**
 * Writing files so that they survive an OS crash or a power cut once the call returns
 * (docs/durability.md): the data is fsynced, and so is the directory that names the file, since
 * on Linux a new or renamed directory entry is only durable once its directory is fsynced.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Fsyncs a file's data and metadata (the file must exist). */
export function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Fsyncs a directory, making the creation, rename or removal of its entries durable. Platforms
 * that cannot open a directory for syncing (Windows) skip it: there the rename is all we have.
 */
export function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (err) {
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    // EINVAL/EISDIR/EPERM: a file system that does not sync directories; nothing more can be done.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw err;
  } finally {
    closeSync(fd);
  }
}

let temporaryCount = 0;

/** The temporary name of `path` while it is written: same folder (so the rename is atomic), hidden, unique per process and call. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${(temporaryCount++).toString(36)}.tmp`);
}

/**
 * Replaces `path` with `data` atomically and durably: written to a temporary file in the same
 * folder, fsynced, renamed over `path`, then the folder fsynced. A reader sees the old content or
 * the new, whole; after a power cut the file holds one of them, and the new one once this returned.
 */
export function writeFileDurably(path: string, data: string | Uint8Array): void {
  const tmp = temporaryPathFor(path);
  const fd = openSync(tmp, 'wx', 0o644);
  let open = true;
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    renameSync(tmp, path);
  } catch (err) {
    if (open) closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDirectory(dirname(path));
}
