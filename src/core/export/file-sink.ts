/**
 * The bytes of an export into a file (docs/export.md#how-an-export-runs): every chunk written
 * whole, however little the file system takes at a time, and counted for the result.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ByteSink } from '../../export/model.js';

/** A temporary file being written, counted. */
export class FileSink implements ByteSink {
  bytes = 0;
  constructor(readonly fh: FileHandle) {}

  async write(chunk: Uint8Array): Promise<void> {
    let off = 0;
    while (off < chunk.length) {
      const { bytesWritten } = await this.fh.write(chunk, off, chunk.length - off);
      off += bytesWritten;
    }
    this.bytes += chunk.length;
  }
}
