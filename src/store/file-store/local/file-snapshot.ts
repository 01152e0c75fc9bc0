import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { AppError } from '../../../shared/errors.js';
import { HEAD_BYTES, type FileSnapshot } from '../../file-store-contract.js';

interface Digest {
  md5: string;
  sha256: string;
  head: Buffer;
}

/**
 * Hashes of file versions already read, by identity (device, inode, size, change time in ns). A
 * replaced file is a new inode and any change in place moves the change time, so an entry can
 * only describe the bytes it was computed from; bounded, oldest dropped first.
 */
const DIGESTS = new Map<string, Digest>();
const DIGESTS_MAX = 2048;

const CHUNK = 256 * 1024;

async function digestOf(fh: FileHandle, size: number, what: string): Promise<Digest> {
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = 0;
  let head = Buffer.alloc(0);
  while (pos < size) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - pos), pos);
    if (bytesRead === 0) break;
    const chunk = buf.subarray(0, bytesRead);
    if (pos === 0) head = Buffer.from(chunk.subarray(0, HEAD_BYTES));
    md5.update(chunk);
    sha.update(chunk);
    pos += bytesRead;
  }
  if (pos !== size)
    throw new AppError('IO_ERROR', `${what} was cut short while being read (${pos} of ${size} bytes): was it changed in place?`, {
      file: what,
    });
  return { md5: md5.digest('hex'), sha256: sha.digest('hex'), head };
}

/**
 * Opens one version of a file for reading (see FileSnapshot); undefined when there is no such
 * file, `'directory'` for a folder. `what` names the file in errors.
 */
export async function openSnapshot(path: string, what: string): Promise<FileSnapshot | 'directory' | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new AppError('IO_ERROR', `cannot open ${what}: ${code ?? (err as Error).message}`, { file: what }, { cause: err });
  }
  try {
    const st = await fh.stat({ bigint: true });
    if (st.isDirectory()) {
      await fh.close();
      return 'directory';
    }
    const size = Number(st.size);
    const key = `${st.dev}:${st.ino}:${st.size}:${st.ctimeNs}:${st.mtimeNs}`;
    let digest = DIGESTS.get(key);
    if (!digest) {
      digest = await digestOf(fh, size, what);
      if (DIGESTS.size >= DIGESTS_MAX) DIGESTS.delete(DIGESTS.keys().next().value!);
      DIGESTS.set(key, digest);
    }
    let taken = false;
    return {
      size,
      ...digest,
      mtimeMs: Number(st.mtimeMs),
      stream() {
        if (taken)
          throw new AppError('INTERNAL', `the snapshot of ${what} was streamed twice (a file snapshot streams once)`, { file: what });
        taken = true;
        if (size === 0) {
          void fh.close();
          return Readable.from([]);
        }
        // Bounded by the size the headers announce, read from the descriptor that was hashed.
        return fh.createReadStream({ start: 0, end: size - 1, autoClose: true });
      },
      async close() {
        if (taken) return;
        taken = true;
        await fh.close();
      },
    };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}
