/**
 * fsync of a file and of a directory, for files that must survive an OS crash or a power cut once
 * a call returns (docs/durability.md): on Linux a new or renamed directory entry is only durable
 * once its directory is fsynced. Uploaded files are written by core/files/atomic-write.ts, which does
 * the same without blocking the server.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

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
 * Fsyncs a file's data and metadata off the event loop (libuv's pool). Opened for writing: some
 * platforms refuse to sync a read-only handle.
 */
export async function fsyncFileAsync(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
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
