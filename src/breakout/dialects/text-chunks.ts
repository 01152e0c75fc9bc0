/**
 * Rows of a text bulk format (PostgreSQL COPY) written straight into UTF-8 Buffers: no line
 * strings, and no digit strings for integers. A breakout writes each row here as soon as it is
 * flattened, so the page holds bytes outside the JavaScript heap instead of row arrays
 * that live until the page is loaded (bench/README.md, "Breakout nearer the loaders").
 */
import { Readable } from 'node:stream';
import type { Row, RowSource } from '../plan-model.js';

/** Bytes per chunk: one socket write each; a page's larger tables fill a few of them. */
const CHUNK_BYTES = 128 * 1024;

const EMPTY = Buffer.alloc(0);

/** Writes one row (its line, newline included) into `out`. */
export type RowWriter = (row: Row, out: TextChunks) => void;

/** Counts the rows that went through a stream. */
export interface RowCounter {
  rows: number;
}

/** A growing list of UTF-8 chunks; `rows` counts the rows written. */
export class TextChunks {
  rows = 0;
  private readonly done: Buffer[] = [];
  private buf: Buffer;
  private pos = 0;

  /** The first chunk is allocated by the first write: a table without rows costs nothing. */
  constructor(private readonly chunkBytes = CHUNK_BYTES) {
    this.buf = EMPTY;
  }

  /** Whether full chunks are waiting to be taken. */
  get hasFullChunks(): boolean {
    return this.done.length > 0;
  }

  /** The full chunks written so far, handed over (the writer keeps none of them). */
  takeFull(): Buffer[] {
    return this.done.splice(0, this.done.length);
  }

  /** Every chunk, the last partly filled one included; nothing may be written after. */
  finish(): Buffer[] {
    if (this.pos > 0) this.done.push(this.buf.subarray(0, this.pos));
    this.pos = 0;
    this.buf = EMPTY;
    return this.takeFull();
  }

  /** One byte (an ASCII character code). */
  byte(code: number): void {
    if (this.pos === this.buf.length) this.next(1);
    this.buf[this.pos++] = code;
  }

  /** A string as UTF-8 (a lone surrogate becomes U+FFFD, as Buffer.from does). */
  text(s: string): void {
    const n = s.length;
    // Short ASCII, most cells: byte by byte costs less than a call into the encoder.
    if (n <= 40 && this.pos + n <= this.buf.length) {
      const buf = this.buf;
      let p = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        this.pos = p;
        return;
      }
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (this.pos + 3 * n > this.buf.length) this.next(3 * n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /**
   * Writes `s` when every character is printable ASCII other than a backslash, the text that no
   * text format escapes or changes, and says whether it did; nothing is written otherwise.
   */
  unescapedAscii(s: string): boolean {
    const n = s.length;
    if (n > 64) return false;
    if (this.pos + n > this.buf.length) this.next(n);
    const buf = this.buf;
    const start = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x5c) return false;
      buf[start + i] = c;
    }
    this.pos = start + n;
    return true;
  }

  /** An integer's decimal digits, as String(v) writes them. */
  integer(v: number): void {
    if (this.pos + 17 > this.buf.length) this.next(17);
    const buf = this.buf;
    // Most values of a survey are small: one or two digits without a division loop.
    if (v >= 0 && v < 100 && (v | 0) === v) {
      if (v >= 10) {
        const tens = (v / 10) | 0;
        buf[this.pos++] = 48 + tens;
        v -= tens * 10;
      }
      buf[this.pos++] = 48 + v;
      return;
    }
    if (!Number.isSafeInteger(v)) {
      this.text(String(v));
      return;
    }
    if (v < 0) {
      buf[this.pos++] = 45; // '-'
      v = -v;
    }
    let digits = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) digits++;
    let p = this.pos + digits;
    this.pos = p;
    do {
      const q = Math.floor(v / 10);
      buf[--p] = 48 + (v - q * 10);
      v = q;
    } while (v > 0);
  }

  /** Ends the current chunk and starts one with room for `bytes` more. */
  private next(bytes: number): void {
    if (this.pos > 0) this.done.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes));
    this.pos = 0;
  }
}

function* syncChunks(rows: Iterable<Row>, write: RowWriter, counter: RowCounter): Generator<Buffer> {
  const out = new TextChunks();
  for (const row of rows) {
    write(row, out);
    counter.rows++;
    if (out.hasFullChunks) yield* out.takeFull();
  }
  yield* out.finish();
}

async function* asyncChunks(rows: AsyncIterable<Row>, write: RowWriter, counter: RowCounter): AsyncGenerator<Buffer> {
  const out = new TextChunks();
  for await (const row of rows) {
    write(row, out);
    counter.rows++;
    if (out.hasFullChunks) yield* out.takeFull();
  }
  yield* out.finish();
}

/**
 * A Readable of the rows' UTF-8 lines, pulled on demand so memory stays bounded by a chunk;
 * `counter.rows` says how many rows were read from `rows`. A plain iterable is walked
 * synchronously: `for await` over an array would cost a promise per row.
 */
export function writtenStream(rows: RowSource, write: RowWriter, counter: RowCounter): Readable {
  const source = Symbol.iterator in rows ? syncChunks(rows, write, counter) : asyncChunks(rows, write, counter);
  return Readable.from(source, { objectMode: false });
}
