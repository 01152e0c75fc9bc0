import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ExportCell, ExportColumn, ExportTable, TableStats } from '../../../src/export/model.js';
import { stataFormat } from '../../../src/export/formats/stata/index.js';

/** The first pass over rows the way the pipeline makes it: row count and longest UTF-8 string per column. */
export function statsOf(columns: readonly ExportColumn[], rows: readonly (readonly ExportCell[])[]): TableStats {
  const maxBytes = columns.map(() => 0);
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (typeof cell === 'string') maxBytes[i] = Math.max(maxBytes[i] ?? 0, Buffer.byteLength(cell, 'utf8'));
    });
  }
  return { rows: rows.length, maxBytes };
}

/** Writes `rows` of `table` to `path` through the Stata format, with a file sink. */
export async function writeDta(path: string, table: ExportTable, rows: Iterable<readonly ExportCell[]>, stats: TableStats): Promise<void> {
  const out = createWriteStream(path);
  const sink = {
    async write(chunk: Uint8Array): Promise<void> {
      if (!out.write(chunk)) await once(out, 'drain');
    },
  };
  const writer = stataFormat.open(table, sink, { labels: 'codes', rowGroupRows: 10_000 }, stats);
  try {
    for (const row of rows) await writer.writeRow(row);
    await writer.close();
  } finally {
    out.end();
    await once(out, 'close');
  }
}
