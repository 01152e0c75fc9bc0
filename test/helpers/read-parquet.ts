/**
 * Reads a Parquet export back with DuckDB (not our code): every value, the physical and logical
 * types, the row groups and the `sds.*` key-value metadata (docs/export.md#parquet). Values are
 * plain JS: integers as numbers (as strings beyond 2^53), decimals as their exact text
 * (`-123.45`), timestamps as ISO 8601 (`2024-03-01T10:00:00.000Z`), strings, booleans, null.
 */
import { DuckDBDecimalValue, DuckDBInstance, DuckDBTimestampTZValue, type DuckDBConnection } from '@duckdb/node-api';

export interface ParquetColumnRead {
  name: string;
  label: string;
  /** Code → label, from the value set in the metadata (ranges as `from:to`). */
  valueLabels: Map<string, string>;
  /** Physical type, e.g. `INT32`, `BYTE_ARRAY`. */
  physical: string;
  /** DuckDB's text of the logical type (e.g. `DecimalType(scale=2, precision=5)`), or null. */
  logical: string | null;
  /** The DuckDB type of the column as read, e.g. `DECIMAL(5,2)`, `TIMESTAMP WITH TIME ZONE`. */
  duckType: string;
  /** The page encodings of the column's chunks, e.g. `PLAIN, RLE_DICTIONARY` (empty with no rows). */
  encodings: string[];
}

export interface ParquetRead {
  columns: ParquetColumnRead[];
  rows: unknown[][];
  /** The raw key-value metadata, decoded as UTF-8. */
  kv: Record<string, string>;
  rowGroups: { rows: number; compression: string }[];
}

let connection: Promise<DuckDBConnection> | undefined;
function duck(): Promise<DuckDBConnection> {
  connection ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  return connection;
}

const quote = (path: string) => `'${path.replaceAll("'", "''")}'`;

function plain(value: unknown): unknown {
  if (value instanceof DuckDBDecimalValue) return value.toString();
  if (value instanceof DuckDBTimestampTZValue) return new Date(Number(value.micros / 1000n)).toISOString();
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

/** Everything DuckDB sees in the Parquet file at `path`. */
export async function readParquet(path: string): Promise<ParquetRead> {
  const c = await duck();
  const file = quote(path);
  const kvRows = (await c.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${file})`)).getRowObjects();
  const kv = Object.fromEntries(kvRows.map((r) => [String(r.k), String(r.v)]));
  const meta = JSON.parse(kv['sds.columns'] ?? '[]') as {
    name: string;
    label: string;
    valueSet?: { values: { value: number | string; label: string }[]; ranges: { from: number; to: number; label: string }[] };
  }[];
  const schema = (
    await c.runAndReadAll(`SELECT name, type, logical_type FROM parquet_schema(${file}) WHERE num_children IS NULL`)
  ).getRowObjects();
  const data = await c.runAndReadAll(`SELECT * FROM read_parquet(${file})`);
  const duckTypes = data.columnTypes().map((t) => t.toString());
  const chunkEncodings = (
    await c.runAndReadAll(`SELECT path_in_schema AS p, string_agg(DISTINCT encodings, ', ') AS e FROM parquet_metadata(${file}) GROUP BY 1`)
  ).getRowObjects();
  const encodingsOf = (name: string) => {
    const e = chunkEncodings.find((r) => r.p === name)?.e;
    return typeof e === 'string' ? [...new Set(e.split(', '))].sort() : [];
  };
  const columns = schema.map((s, i): ParquetColumnRead => {
    const m = meta.find((x) => x.name === s.name);
    const valueLabels = new Map<string, string>();
    for (const v of m?.valueSet?.values ?? []) valueLabels.set(String(v.value), v.label);
    for (const r of m?.valueSet?.ranges ?? []) valueLabels.set(`${r.from}:${r.to}`, r.label);
    return {
      name: String(s.name),
      label: m?.label ?? '',
      valueLabels,
      physical: String(s.type),
      logical: s.logical_type === null ? null : String(s.logical_type),
      duckType: duckTypes[i]!,
      encodings: encodingsOf(String(s.name)),
    };
  });
  const rows = data.getRows().map((r) => r.map(plain));
  const groups = (
    await c.runAndReadAll(
      `SELECT row_group_id, any_value(row_group_num_rows) AS n, any_value(compression) AS codec FROM parquet_metadata(${file}) GROUP BY row_group_id ORDER BY row_group_id`,
    )
  ).getRowObjects();
  return { columns, rows, kv, rowGroups: groups.map((g) => ({ rows: Number(g.n), compression: String(g.codec) })) };
}
