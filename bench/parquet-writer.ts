// One Parquet writer run in its own process (bench/parquet-writers.ts): write BENCH_PARQUET_ROWS
// rows of the synthetic table to a file and print seconds, bytes and peak RSS as one JSON line.
//   hyparquet: the export's format (src/export/formats/parquet, compiled), row groups streamed out;
//   duckdb:    @duckdb/node-api, rows appended into a table of a file database, then COPY TO parquet
//              (DuckDB writes Parquet from a table or query, not from rows handed one by one).
import { open, rm, stat } from 'node:fs/promises';
import { shipped } from './shipped.js';
import { benchRow, benchTable } from './parquet-table.js';

const [writer, out, rowsArg, groupArg] = process.argv.slice(2) as [string, string, string, string];
const rows = Number(rowsArg);
const rowGroupRows = Number(groupArg);
const t0 = performance.now();

if (writer === 'hyparquet') {
  const { parquetFormat } = await shipped<typeof import('../src/export/formats/parquet/index.js')>('export/formats/parquet/index.js');
  const file = await open(out, 'w');
  const sink = { write: async (chunk: Uint8Array) => void (await file.write(chunk)) };
  const w = parquetFormat.open(benchTable, sink, { labels: 'codes', rowGroupRows });
  for (let i = 0; i < rows; i++) await w.writeRow(benchRow(i));
  await w.close();
  await file.close();
} else if (writer === 'duckdb') {
  const { DuckDBInstance, DuckDBDecimalValue, DuckDBTimestampTZValue } = await import('@duckdb/node-api');
  const dbFile = `${out}.duckdb`;
  const db = await DuckDBInstance.create(dbFile, { threads: '2' });
  const c = await db.connect();
  const sqlType = (t: (typeof benchTable.columns)[number]['type']): string =>
    t.kind === 'integer'
      ? t.digits <= 9
        ? 'INTEGER'
        : 'BIGINT'
      : t.kind === 'decimal'
        ? `DECIMAL(${t.precision},${t.scale})`
        : t.kind === 'boolean'
          ? 'BOOLEAN'
          : t.kind === 'timestamp'
            ? 'TIMESTAMPTZ'
            : 'VARCHAR';
  await c.run(`CREATE TABLE t (${benchTable.columns.map((col) => `${col.name} ${sqlType(col.type)}`).join(', ')})`);
  const a = await c.createAppender('t');
  const appenders = benchTable.columns.map((col) => {
    const t = col.type;
    if (t.kind === 'integer')
      return t.digits <= 9 ? (v: unknown) => a.appendInteger(v as number) : (v: unknown) => a.appendBigInt(BigInt(v as number));
    if (t.kind === 'decimal') {
      const f = 10 ** t.scale;
      return (v: unknown) => a.appendDecimal(new DuckDBDecimalValue(BigInt(Math.round((v as number) * f)), t.precision, t.scale));
    }
    if (t.kind === 'boolean') return (v: unknown) => a.appendBoolean(v as boolean);
    if (t.kind === 'timestamp')
      return (v: unknown) => a.appendTimestampTZ(new DuckDBTimestampTZValue(BigInt(Date.parse(v as string)) * 1000n));
    return (v: unknown) => a.appendVarchar(v as string);
  });
  for (let i = 0; i < rows; i++) {
    const cells = benchRow(i);
    for (let j = 0; j < cells.length; j++) {
      if (cells[j] === null) a.appendNull();
      else appenders[j]!(cells[j]);
    }
    a.endRow();
    if ((i + 1) % rowGroupRows === 0) a.flushSync();
  }
  a.closeSync();
  await c.run(`COPY t TO '${out}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${rowGroupRows})`);
  c.closeSync();
  db.closeSync();
  await rm(dbFile, { force: true });
  await rm(`${dbFile}.wal`, { force: true });
} else {
  throw new Error(`unknown writer ${writer}`);
}

const seconds = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    writer,
    rows,
    rowGroupRows,
    seconds,
    bytes: (await stat(out)).size,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  }),
);
