/**
 * Turns a (possibly async) row source into a stream of text chunks for MySQL's LOAD DATA, line
 * by line as strings. Rows are pulled on demand, so memory stays bounded by one chunk whatever
 * the number of rows. PostgreSQL's COPY writes bytes instead (text-chunks.ts).
 */
import { Readable } from 'node:stream';
import type { Row } from '../plan-model.js';
import type { RowSource } from './dialect.js';

/** About 64 KiB per write: large enough to amortise a syscall, small for a MySQL packet (16 MiB). */
const CHUNK_CHARS = 64 * 1024;

/** Counts the rows that went through a stream. */
export interface RowCounter {
  rows: number;
}

function* syncChunks(rows: Iterable<Row>, encodeLine: (row: Row) => string, counter: RowCounter): Generator<Buffer> {
  let buf = '';
  for (const row of rows) {
    buf += encodeLine(row);
    counter.rows++;
    if (buf.length >= CHUNK_CHARS) {
      yield Buffer.from(buf, 'utf8');
      buf = '';
    }
  }
  if (buf) yield Buffer.from(buf, 'utf8');
}

async function* asyncChunks(rows: AsyncIterable<Row>, encodeLine: (row: Row) => string, counter: RowCounter): AsyncGenerator<Buffer> {
  let buf = '';
  for await (const row of rows) {
    buf += encodeLine(row);
    counter.rows++;
    if (buf.length >= CHUNK_CHARS) {
      yield Buffer.from(buf, 'utf8');
      buf = '';
    }
  }
  if (buf) yield Buffer.from(buf, 'utf8');
}

/**
 * A Readable of UTF-8 encoded lines; `counter.rows` says how many rows were read from `rows`.
 * A plain iterable (the breakout's arrays) is walked synchronously: `for await` over an array
 * would cost a promise per row, which showed up as a tenth of a breakout's CPU time.
 */
export function encodedStream(rows: RowSource, encodeLine: (row: Row) => string, counter: RowCounter): Readable {
  const source = Symbol.iterator in rows ? syncChunks(rows, encodeLine, counter) : asyncChunks(rows, encodeLine, counter);
  return Readable.from(source, { objectMode: false });
}

/** Encodes one non-null cell for a text bulk format. */
export type CellEncoder = (value: string | number | boolean) => string;

/**
 * A line encoder for tab-separated bulk formats: cells joined by tabs, NULL (or undefined) as
 * `\N`, a newline at the end. Cell encoders escape their own tabs, newlines and backslashes.
 */
export function tabLineEncoder(cells: CellEncoder[]): (row: Row) => string {
  const n = cells.length;
  return (row) => {
    let line = '';
    for (let i = 0; i < n; i++) {
      const v = row[i];
      if (i > 0) line += '\t';
      line += v === null || v === undefined ? '\\N' : cells[i]!(v);
    }
    return `${line}\n`;
  };
}
