/**
 * The Excel workbook writer on its own (docs/export.md#excel), written to a real file and read back
 * with pandas (openpyxl): cell types and values at the edges (wide numbers, long and awkward texts,
 * times, blanks), sheet names Excel would refuse, the codebook sheet, the row limit, abort, and a
 * table of 60,000 rows through a slow sink (rows go out as they are written, nothing lost).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xlsxFormat } from '../../../src/export/formats/xlsx/index.js';
import type { ByteSink, ExportCell, ExportTable } from '../../../src/export/model.js';
import { AppError } from '../../../src/shared/errors.js';
import { readXlsx } from '../../helpers/read-xlsx.js';
import { python } from '../../helpers/export-readback.js';

const table: ExportTable = {
  name: 'adv_person',
  label: 'Persons',
  columns: [
    { name: 'id', source: 'id', label: 'Id', type: { kind: 'integer', digits: 4 } },
    { name: 'big', source: 'big', label: 'Wide', type: { kind: 'integer', digits: 20 } },
    { name: 'amount', source: 'amount', label: 'Amount', type: { kind: 'decimal', precision: 8, scale: 2 } },
    { name: 'note', source: 'note', label: 'Note', type: { kind: 'text' } },
    { name: 'at', source: 'at', label: 'At', type: { kind: 'timestamp' } },
    { name: 'ok', source: 'ok', label: 'Ok', type: { kind: 'boolean' } },
  ],
};
const LONG = 'é'.repeat(40_000);
const rows: ExportCell[][] = [
  [1, '12345678901234567890', -1234.56, 'Привет, "мир"\nline two', '2024-03-01T10:00:00.123Z', true],
  [2, 1_234_567_890_123_456, null, '=SUM(A1:A2) <b>&amp;</b>', null, false],
  [3, 42, 0.5, LONG, '1999-12-31T23:59:59.999Z', null],
];

/** A sink into a file, optionally slow: each chunk waits a turn of the event loop. */
function fileSink(path: string, slow = false): ByteSink & { chunks: number } {
  writeFileSync(path, '');
  const sink = {
    chunks: 0,
    async write(chunk: Uint8Array) {
      if (slow) await new Promise((r) => setTimeout(r, 1));
      appendFileSync(path, chunk);
      sink.chunks += 1;
    },
  };
  return sink;
}

function tmp(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sds-xlsx-test-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('Excel workbook writer', () => {
  it('writes each cell with its type, read back by pandas, and the codebook sheet', async () => {
    const t = tmp();
    try {
      const file = join(t.dir, 'a.xlsx');
      const book = xlsxFormat.open([table, { ...table, name: 'codebook' }], fileSink(file), { labels: 'codes', rowGroupRows: 100 });
      assert.deepEqual(book.names, ['adv_person', 'codebook_2']);
      for (const r of rows) await book.tables[0]!.writeRow(r);
      await book.tables[1]!.writeRow(rows[0]!);
      for (const w of book.tables) await w.close();
      await book.close();
      const sheets = readXlsx(file);
      assert.deepEqual(
        sheets.map((s) => s.name),
        ['adv_person', 'codebook_2', 'codebook'],
      );
      const s = sheets[0]!;
      assert.deepEqual(s.columns, ['id', 'big', 'amount', 'note', 'at', 'ok']);
      assert.deepEqual(s.rows[0], [1, '12345678901234567890', -1234.56, 'Привет, "мир"\nline two', '2024-03-01T10:00:00.123Z', 1]);
      assert.deepEqual(s.rows[1], [2, '1234567890123456', null, '=SUM(A1:A2) <b>&amp;</b>', null, 0]);
      assert.deepEqual(s.rows[2]!.slice(0, 3), [3, 42, 0.5]);
      assert.equal(s.rows[2]![3], LONG.slice(0, 32_767), 'cut to what a cell holds');
      assert.equal(s.rows[2]![4], '1999-12-31T23:59:59.999Z');
      assert.equal(s.dtypes[0], 'int64');
      assert.match(s.dtypes[4]!, /^datetime64/);
      assert.deepEqual(s.cellTypes[1], ['int', 'str']);
      assert.deepEqual(s.cellTypes[4], ['datetime']);
      const codebook = sheets[2]!;
      assert.equal(codebook.columns[0], 'file');
      assert.deepEqual(codebook.rows[0]!.slice(0, 4), ['adv_person', 'adv_person', 'table', null]);
      assert.ok(codebook.rows.some((r) => r[0] === 'codebook_2' && r[2] === 'column' && r[3] === 'note'));
    } finally {
      t.done();
    }
  });

  it('refuses the row past the limit (header included) with EXPORT_XLSX_TOO_MANY_ROWS, naming the table', async () => {
    const t = tmp();
    try {
      const sink = fileSink(join(t.dir, 'b.xlsx'));
      const book = xlsxFormat.open([table], sink, { labels: 'codes', rowGroupRows: 100, sheetRows: 3 });
      await book.tables[0]!.writeRow(rows[0]!);
      await book.tables[0]!.writeRow(rows[1]!);
      await assert.rejects(
        async () => book.tables[0]!.writeRow(rows[2]!),
        (e: unknown) => e instanceof AppError && e.code === 'EXPORT_XLSX_TOO_MANY_ROWS' && /adv_person/.test(e.message),
      );
      await book.abort();
      await book.abort();
      await assert.rejects(
        async () => book.tables[0]!.writeRow(rows[0]!),
        (e: unknown) => e instanceof AppError && e.code === 'INTERNAL',
      );
      assert.equal(sink.chunks, 0, 'nothing written before close');
    } finally {
      t.done();
    }
  });

  it('streams 60,000 rows through a slow sink: every row arrives, in order', async () => {
    const t = tmp();
    try {
      const file = join(t.dir, 'c.xlsx');
      const sink = fileSink(file, true);
      const small: ExportTable = { name: 'big', label: 'Big', columns: table.columns.slice(0, 4) };
      const book = xlsxFormat.open([small], sink, { labels: 'codes', rowGroupRows: 100 });
      const n = 60_000;
      for (let i = 0; i < n; i++) await book.tables[0]!.writeRow([i, i * 7, i / 4, `row ${i}`]);
      await book.tables[0]!.close();
      await book.close();
      assert.ok(sink.chunks > 10, `the zip went out in many chunks (${sink.chunks})`);
      // openpyxl alone (pandas reads twice as slowly): every row, in order, with its values.
      const got = python<{ rows: number; bad: number; last: unknown[] }>(
        `import openpyxl, json, sys
ws = openpyxl.load_workbook(sys.argv[1], read_only=True)['big']
rows = 0; bad = 0; last = None
for i, row in enumerate(ws.iter_rows(min_row=2, values_only=True)):
    rows += 1
    if row[0] != i or row[1] != i * 7 or row[2] != i / 4 or row[3] != 'row %d' % i: bad += 1
    last = row
print(json.dumps({'rows': rows, 'bad': bad, 'last': list(last)}))`,
        [file],
      );
      assert.deepEqual(got, { rows: n, bad: 0, last: [n - 1, (n - 1) * 7, (n - 1) / 4, `row ${n - 1}`] });
    } finally {
      t.done();
    }
  });
});
