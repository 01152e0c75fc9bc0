/**
 * The Stata writer at scale and at its edges: 100,000 rows with flat memory (with and without
 * strLs), format 119 above 32,767 variables, and the errors for values Stata cannot hold exactly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ExportCell, ExportColumn, ExportTable } from '../../../src/export/model.js';
import { stataFormat } from '../../../src/export/formats/stata/index.js';
import { AppError } from '../../../src/shared/errors.js';
import { readStata } from '../../helpers/read-stata.js';
import { writeDta } from './stata-helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROWS = 100_000;

function memory(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Writes generated rows to a sink that only counts bytes, sampling memory as it goes. */
async function countingWrite(table: ExportTable, makeRow: (i: number) => ExportCell[], maxBytes: number[]) {
  let bytes = 0;
  gc();
  const base = memory();
  let peak = 0;
  const sink = {
    async write(chunk: Uint8Array): Promise<void> {
      bytes += chunk.length;
    },
  };
  const writer = stataFormat.open(table, sink, { labels: 'codes', rowGroupRows: 10_000 }, { rows: ROWS, maxBytes });
  for (let i = 0; i < ROWS; i++) {
    await writer.writeRow(makeRow(i));
    if (i % 5000 === 0) {
      // Live memory only: garbage of the rows already sent does not count.
      gc();
      peak = Math.max(peak, memory() - base);
    }
  }
  await writer.close();
  return { bytes, peak };
}

const num = (name: string, digits: number): ExportColumn => ({ name, source: name, label: name, type: { kind: 'integer', digits } });
const text = (name: string): ExportColumn => ({ name, source: name, label: name, type: { kind: 'text' } });

describe('Stata writer at scale', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sds-stata-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('streams 100,000 rows of str200 with flat memory, and pandas reads them all', async () => {
    const table: ExportTable = { name: 'big', label: 'Big', columns: [num('id', 9), text('note')] };
    const row = (i: number): ExportCell[] => [i, `${i}`.padEnd(200, 'x')];
    const { bytes, peak } = await countingWrite(table, row, [0, 200]);
    const dataBytes = ROWS * (4 + 200);
    assert.ok(bytes > dataBytes, `${bytes} bytes written for ${dataBytes} bytes of data`);
    // Buffering the rows would hold at least the 20 MB of data.
    assert.ok(peak < dataBytes / 2, `memory grew by ${peak} bytes while writing ${dataBytes} bytes of rows`);

    const path = join(dir, 'big.dta');
    await writeDta(
      path,
      table,
      (function* () {
        for (let i = 0; i < ROWS; i++) yield row(i);
      })(),
      { rows: ROWS, maxBytes: [0, 200] },
    );
    assert.equal(statSync(path).size, bytes, 'the counted bytes are the file');
    const file = readStata(path);
    assert.equal(file.rows.length, ROWS);
    assert.deepEqual(file.rows[0], [0, row(0)[1]]);
    assert.deepEqual(file.rows[ROWS - 1], [ROWS - 1, row(ROWS - 1)[1]]);
  });

  it('keeps 100,000 strL values in a temporary file, not in memory', async () => {
    const table: ExportTable = { name: 'notes', label: 'Notes', columns: [num('id', 9), text('content')] };
    const value = (i: number): string => `${i}:`.padEnd(2100, 'n');
    const { bytes, peak } = await countingWrite(table, (i) => [i, i % 7 === 0 ? '' : value(i)], [0, 2100]);
    const strlBytes = ROWS * 2100;
    assert.ok(bytes > (strlBytes * 6) / 7, `${bytes} bytes written`);
    assert.ok(peak < strlBytes / 4, `memory grew by ${peak} bytes while writing ${strlBytes} bytes of strLs`);
  });

  it('reads back a 20,000-row strL table with pandas', async () => {
    const n = 20_000;
    const table: ExportTable = { name: 'notes', label: 'Notes', columns: [num('id', 9), text('content')] };
    const value = (i: number): string => (i % 7 === 0 ? '' : `${i}:`.padEnd(2100, 'é'));
    const path = join(dir, 'notes.dta');
    await writeDta(
      path,
      table,
      (function* () {
        for (let i = 0; i < n; i++) yield [i, value(i)];
      })(),
      { rows: n, maxBytes: [0, Buffer.byteLength(value(1))] },
    );
    const file = readStata(path);
    assert.equal(file.columns[1]!.type, 'Q');
    assert.equal(file.rows.length, n);
    for (const i of [0, 1, 6, 7, 10_000, n - 1]) assert.deepEqual(file.rows[i], [i, value(i)], `row ${i + 1}`);
  });

  it('writes format 119 above 32,767 variables, strLs included', async () => {
    const k = 32_768;
    const columns: ExportColumn[] = Array.from({ length: k }, (_, i) => num(`v${i}`, 1));
    columns[k - 1] = text('last_text');
    const long = 'ü'.repeat(1500);
    const rows: ExportCell[][] = [
      columns.map((_, i) => (i === k - 1 ? long : i % 10)),
      columns.map((_, i) => (i === k - 1 ? 'short' : null)),
    ];
    const path = join(dir, 'wide.dta');
    await writeDta(path, { name: 'wide', label: 'Wide', columns }, rows, {
      rows: 2,
      maxBytes: columns.map((_, i) => (i === k - 1 ? 3000 : 0)),
    });
    const file = readStata(path, ['v0', 'v1', 'v2', `v${k - 2}`, 'last_text']);
    assert.equal(file.version, 119);
    assert.deepEqual(
      file.columns.map((c) => c.name),
      ['v0', 'v1', 'v2', `v${k - 2}`, 'last_text'],
    );
    assert.deepEqual(file.rows[0], [0, 1, 2, (k - 2) % 10, long]);
    assert.deepEqual(file.rows[1], [{ missing: '.' }, { missing: '.' }, { missing: '.' }, { missing: '.' }, 'short']);
  });
});

describe('Stata writer refusals', () => {
  const sink = { async write(): Promise<void> {} };
  const open = (columns: ExportColumn[], rows: number, maxBytes = columns.map(() => 0)) =>
    stataFormat.open({ name: 't', label: 'T', columns }, sink, { labels: 'codes', rowGroupRows: 1 }, { rows, maxBytes });
  const isCode = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

  it('refuses an integer beyond its storage type, naming table, column and row', async () => {
    const w = open([num('small', 2)], 2);
    await w.writeRow([99]);
    await assert.rejects(w.writeRow([500]), (err: unknown) => {
      assert.ok(isCode('STATA_VALUE_UNREPRESENTABLE')(err));
      assert.deepEqual((err as AppError).details, { table: 't', column: 'small', row: 2 });
      return true;
    });
  });

  it('refuses an integer beyond 2^53 rather than round it', async () => {
    const w = open([num('revision', 18)], 1);
    await assert.rejects(w.writeRow(['9007199254740993']), isCode('STATA_VALUE_UNREPRESENTABLE'));
  });

  it('refuses a number or timestamp that does not parse', async () => {
    const w = open([{ name: 'd', source: 'd', label: '', type: { kind: 'decimal', precision: 5, scale: 2 } }], 1);
    await assert.rejects(w.writeRow(['1,5']), isCode('STATA_VALUE_UNREPRESENTABLE'));
    const t = open([{ name: 't', source: 't', label: '', type: { kind: 'timestamp' } }], 1);
    await assert.rejects(t.writeRow(['yesterday']), isCode('STATA_VALUE_UNREPRESENTABLE'));
  });

  it('refuses rows that differ from the first pass', async () => {
    const more = open([num('a', 1)], 1);
    await more.writeRow([1]);
    await assert.rejects(more.writeRow([2]), isCode('STATA_STATS_MISMATCH'));
    const fewer = open([num('a', 1)], 2);
    await fewer.writeRow([1]);
    await assert.rejects(fewer.close(), isCode('STATA_STATS_MISMATCH'));
    const wider = open([text('s')], 1, [3]);
    await assert.rejects(wider.writeRow(['four']), isCode('STATA_STATS_MISMATCH'));
  });
});
