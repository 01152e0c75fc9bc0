// `TableWriter.abort` of every format (docs/export.md#files): after a failure the writer sends
// nothing more (what it buffered is dropped), refuses further rows, and abort is harmless twice,
// after close and before the first row. The Stata strL spool files are covered by
// test/integration/export/export-abort.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EXPORT_FORMATS } from '../../../src/export/formats/index.js';
import type { ExportFormat, ExportTable, TableWriter } from '../../../src/export/model.js';
import { AppError } from '../../../src/shared/errors.js';

const table: ExportTable = {
  name: 't',
  label: 'T',
  columns: [
    { name: 'id', source: 'id', label: 'Id', type: { kind: 'integer', digits: 4 } },
    { name: 'amount', source: 'amount', label: 'Amount', type: { kind: 'decimal', precision: 8, scale: 2 } },
    { name: 'note', source: 'note', label: 'Note', type: { kind: 'varchar', length: 20 } },
  ],
};
const rows = [
  [1, -1234.56, 'Привет'],
  [2, null, null],
];

/** A writer of `format` for `table` whose sink counts the bytes it is sent. */
function open(format: ExportFormat): { writer: TableWriter; sent: () => number } {
  let bytes = 0;
  const sink = {
    async write(chunk: Uint8Array): Promise<void> {
      bytes += chunk.length;
    },
  };
  const stats = { rows: rows.length, maxBytes: [0, 0, Buffer.byteLength('Привет')] };
  const writer = format.open(table, sink, { labels: 'codes', rowGroupRows: 100 }, format.needsStats ? stats : undefined);
  return { writer, sent: () => bytes };
}

const internal = (err: unknown) => err instanceof AppError && err.code === 'INTERNAL';

// A workbook format's writers (Excel) are covered by test/integration/export/xlsx-workbook.test.ts.
const perTable = (await Promise.all(Object.values(EXPORT_FORMATS).map((load) => load()))).filter(
  (f): f is ExportFormat => f.layout !== 'workbook',
);
for (const format of perTable) {
  describe(`${format.name} writer abort`, () => {
    it('sends nothing more after a row, refuses rows after it, and a second abort and close do nothing', async () => {
      const { writer, sent } = open(format);
      await writer.writeRow(rows[0]!);
      const before = sent();
      await writer.abort();
      await writer.abort();
      await assert.rejects(async () => writer.writeRow(rows[1]!), internal);
      await writer.close();
      assert.equal(sent(), before, 'no byte after the abort');
    });

    it('is harmless before the first row and after close', async () => {
      const fresh = open(format);
      await fresh.writer.abort();
      const closed = open(format);
      for (const row of rows) await closed.writer.writeRow(row);
      await closed.writer.close();
      const bytes = closed.sent();
      assert.ok(bytes > 0, 'a whole file was written');
      await closed.writer.abort();
      assert.equal(closed.sent(), bytes);
    });
  });
}
