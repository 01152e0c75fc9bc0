import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** Size and SHA-256 of the bytes a copy or a hash read. */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** Chunk size of copies and hashes: large enough for disk throughput, small enough for memory. */
const CHUNK = 1024 * 1024;

/**
 * Copies `from` into the new file `to` (mode 0600: a backup holds survey data and secrets),
 * hashing the bytes as they pass, and fsyncs it. The digest is of the bytes written, so a file
 * replaced meanwhile is described as it was copied. `onBytes` is told of each chunk; an aborted
 * `signal` stops the copy with its reason (the caller removes the partial file).
 */
export async function copyFileHashed(from: string, to: string, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileDigest> {
  const sha = createHash('sha256');
  let size = 0;
  const out = await open(to, 'wx', 0o600);
  try {
    for await (const chunk of createReadStream(from, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      sha.update(chunk);
      size += chunk.length;
      await out.write(chunk);
      onBytes?.(chunk.length);
    }
    await out.sync();
  } finally {
    await out.close();
  }
  return { size, sha256: sha.digest('hex') };
}

/** Size and SHA-256 of a file, read in chunks. */
export async function hashFile(path: string, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileDigest> {
  const sha = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
    signal?.throwIfAborted();
    sha.update(chunk);
    size += chunk.length;
    onBytes?.(chunk.length);
  }
  return { size, sha256: sha.digest('hex') };
}
