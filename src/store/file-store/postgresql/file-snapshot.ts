/**
 * One version of a file of the PostgreSQL file store, opened once: its size, hashes and first
 * bytes are those of the blob the name held when it was opened, and `stream()` reads that blob's
 * chunks one at a time, each a statement of its own on any connection of the pool. A writer that
 * replaces the name meanwhile writes another blob; the one being read is kept for
 * ORPHAN_GRACE_MS after the last name lets go of it (file-store.ts), so the download completes
 * with the version it began.
 */
import { Readable } from 'node:stream';
import { AppError } from '../../../shared/errors.js';
import type { FileSnapshot } from '../../file-store-contract.js';
import type { PgRunner } from '../../postgresql/pg-runner.js';

/** A named blob as a snapshot reads it. */
export interface BlobRow {
  blob_id: number;
  size: number;
  md5: string;
  sha256: string;
  head: Buffer;
  mtime_ms: number;
}

/** A snapshot of the blob of `row`; `what` names the file in errors. */
export function blobSnapshot(db: PgRunner, row: BlobRow, what: string): FileSnapshot {
  let taken = false;
  return {
    size: row.size,
    md5: row.md5,
    sha256: row.sha256,
    head: row.head,
    mtimeMs: row.mtime_ms,
    stream() {
      if (taken)
        throw new AppError('INTERNAL', `the snapshot of ${what} was streamed twice (a file snapshot streams once)`, { file: what });
      taken = true;
      let seq = 0;
      let sent = 0;
      return new Readable({
        // One chunk in memory at a time: the next is read when the consumer wants more.
        highWaterMark: 1,
        objectMode: false,
        read() {
          if (sent >= row.size) {
            this.push(null);
            return;
          }
          db.row<{ bytes: Buffer }>('SELECT bytes FROM file_blob_chunks WHERE blob_id = $1 AND seq = $2', [row.blob_id, seq++]).then(
            (r) => {
              if (r === undefined) {
                this.destroy(
                  new AppError(
                    'IO_ERROR',
                    `${what} was cut short while being read (${sent} of ${row.size} bytes): its version was removed`,
                    {
                      file: what,
                    },
                  ),
                );
                return;
              }
              sent += r.bytes.length;
              this.push(r.bytes);
              if (sent >= row.size) this.push(null);
            },
            (err: unknown) => this.destroy(err as Error),
          );
        },
      });
    },
    async close() {
      taken = true;
    },
  };
}
