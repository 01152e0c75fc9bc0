/**
 * A temporary file that holds bytes until they can be written in order, instead of memory: a Stata
 * table with strL variables needs the size of its `<strls>` in the header, which is only known once
 * every row is seen (docs/export.md#stata), and an Excel workbook writes its sheets one after
 * another while the export pass feeds every table at once (docs/export.md#excel). The file
 * is unlinked as soon as it is open where the system allows it (Linux, macOS), so nothing is left
 * behind if the export stops half-way; elsewhere it is removed by `dispose`.
 */
import { mkdtemp, open, rm, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteSink } from '../model.js';
import { AppError } from '../../shared/errors.js';

/** Bytes gathered in memory before one write to the file, and read back per copy step. */
const CHUNK_BYTES = 1 << 20;

export class Spool {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  private disposed = false;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  /** Opens a new spool file in a fresh folder `<prefix>XXXXXX` under the system's temp folder (`TMPDIR`). */
  static async open(name: string, prefix: string): Promise<Spool> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    const path = join(dir, name);
    let file: FileHandle;
    try {
      file = await open(path, 'w+');
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    try {
      await unlink(path);
      await rm(dir, { recursive: true, force: true });
    } catch {
      // The system cannot unlink an open file (Windows): dispose() removes it.
    }
    return new Spool(dir, file);
  }

  /** Bytes appended so far. */
  get size(): number {
    return this.written + this.pendingBytes;
  }

  async append(chunk: Buffer): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.file.write(data, 0, data.length, this.written);
    this.written += data.length;
  }

  /** Sends everything appended to `sink`, in order, one chunk at a time. */
  async copyTo(sink: ByteSink): Promise<void> {
    await this.flush();
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(this.written, 1)));
    for (let at = 0; at < this.written;) {
      const { bytesRead } = await this.file.read(buffer, 0, Math.min(buffer.length, this.written - at), at);
      if (bytesRead === 0) {
        // The temp file shrank under us (something else truncated it): the export cannot be completed.
        throw new AppError('IO_ERROR', `the spool file in ${this.dir} ended at byte ${at} of ${this.written} written`, {
          file: this.dir,
        });
      }
      // A copy: the sink may keep the chunk while the buffer is reused.
      await sink.write(Buffer.from(buffer.subarray(0, bytesRead)));
      at += bytesRead;
    }
  }

  /** Closes and removes the file; harmless when done already. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.pending = [];
    this.pendingBytes = 0;
    await this.file.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
