/**
 * The rows of one sheet while the export pass runs (docs/export.md#excel): the pass hands every
 * table its rows at once, while a workbook holds its sheets one after another, so each table's
 * rows wait in a temporary file (one JSON array per line) until its sheet is written. Memory holds
 * one chunk of text, whatever the number of rows.
 */
import { StringDecoder } from 'node:string_decoder';
import type { ByteSink, ExportCell } from '../../model.js';
import { Spool } from '../spool.js';

/** Characters of rows gathered before they go to the spool file. */
const CHUNK_CHARS = 256 * 1024;

export class SpooledRows {
  private spool: Spool | undefined;
  private pending = '';
  private disposed = false;

  /** Adds one row after the others. */
  async add(cells: readonly ExportCell[]): Promise<void> {
    // JSON keeps each cell's type (a wide integer as a string stays a string) and escapes line breaks.
    this.pending += JSON.stringify(cells) + '\n';
    if (this.pending.length >= CHUNK_CHARS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending === '') return;
    this.spool ??= await Spool.open('rows', 'sds-xlsx-');
    const text = this.pending;
    this.pending = '';
    await this.spool.append(Buffer.from(text, 'utf8'));
  }

  /**
   * Reads the rows back in order, one chunk of the file at a time: `onRows` gets the rows of each
   * chunk and is awaited before the next chunk is read.
   */
  async replay(onRows: (rows: ExportCell[][]) => Promise<void>): Promise<void> {
    await this.flush();
    if (!this.spool) return;
    const decoder = new StringDecoder('utf8');
    let carry = '';
    const sink: ByteSink = {
      write: async (chunk) => {
        const text = carry + decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        const end = text.lastIndexOf('\n');
        carry = text.slice(end + 1);
        if (end < 0) return;
        const rows = text
          .slice(0, end)
          .split('\n')
          .map((line) => JSON.parse(line) as ExportCell[]);
        await onRows(rows);
      },
    };
    await this.spool.copyTo(sink);
  }

  /** Closes and removes the file; harmless when done already. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.pending = '';
    await this.spool?.dispose();
  }
}
