/**
 * Writing a blob of the PostgreSQL file store (docs/decisions.md, "Files in the PostgreSQL store
 * (issue 28)"): the bytes go into `file_blob_chunks` in chunks of CHUNK_BYTES, each chunk its own
 * statement and commit, so an upload holds no connection or transaction while it waits for the
 * client's next bytes and no more than one chunk in memory. The blob has no sha256 until the
 * transaction that puts it in place names it; until then nothing refers to it.
 */
import { hostname } from 'node:os';
import { AppError } from '../../../shared/errors.js';
import type { StageOptions } from '../../file-store-contract.js';
import type { PgRunner } from '../../postgresql/pg-runner.js';
import { UploadDigest } from '../upload-digest.js';

/** Bytes per chunk row: large enough that a 100 MB file is 100 round trips, small enough to hold in memory. */
export const CHUNK_BYTES = 1024 * 1024;

/** The writer of an upload, for the sweep of uploads a crash cut: this machine and process. */
export const WRITER = `${hostname()}:${process.pid}`;

/** A blob written, not yet named. */
export interface WrittenBlob {
  id: number;
  size: number;
  md5: string;
  sha256: string;
  head: Buffer;
  mtimeMs: number;
}

/** Deletes a blob that nothing refers to (an upload refused or cut), with its chunks. */
export async function dropBlob(db: PgRunner, id: number): Promise<void> {
  await db.run('DELETE FROM file_blobs WHERE id = $1 AND sha256 IS NULL', [id]);
}

/**
 * Writes `content` as a new, unnamed blob, hashing and counting as it streams: refused with
 * PAYLOAD_TOO_LARGE at the chunk that crosses `maxBytes`, CHECKSUM_MISMATCH when its md5 is not
 * `expectedMd5`; on any failure the blob and its chunks are deleted.
 */
export async function writeBlob(db: PgRunner, content: AsyncIterable<Buffer | string>, opts: StageOptions): Promise<WrittenBlob> {
  const { id } = (await db.row<{ id: number }>('INSERT INTO file_blobs (writer, touched_ms) VALUES ($1, $2) RETURNING id', [
    WRITER,
    Date.now(),
  ]))!;
  const digest = new UploadDigest(opts);
  let seq = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async (): Promise<void> => {
    const bytes = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await db.run(
      `WITH chunk AS (INSERT INTO file_blob_chunks (blob_id, seq, bytes) VALUES ($1, $2, $3))
       UPDATE file_blobs SET touched_ms = $4 WHERE id = $1`,
      [id, seq++, bytes, Date.now()],
    );
  };
  try {
    for await (const part of content) {
      let chunk = digest.add(part);
      while (pendingBytes + chunk.length >= CHUNK_BYTES) {
        const take = CHUNK_BYTES - pendingBytes;
        pending.push(chunk.subarray(0, take));
        pendingBytes += take;
        chunk = chunk.subarray(take);
        await flush();
      }
      if (chunk.length > 0) {
        // Copied: the stream may reuse its buffer for the next part.
        pending.push(Buffer.from(chunk));
        pendingBytes += chunk.length;
      }
    }
    if (pendingBytes > 0) await flush();
    return { id, ...digest.finish(), mtimeMs: Date.now() };
  } catch (err) {
    await dropBlob(db, id).catch(() => undefined);
    if (err instanceof AppError) throw err;
    throw new AppError('IO_ERROR', `could not store ${opts.file}: ${(err as Error).message}`, { file: opts.file }, { cause: err });
  }
}
