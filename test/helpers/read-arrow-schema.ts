/**
 * Reads a Parquet export as an Arrow reader does (docs/export.md#column-descriptions): with
 * parquet-wasm, the Rust `parquet` crate's Arrow reader compiled to WebAssembly (not our code),
 * which takes the column types and field metadata from the file's `ARROW:schema` as pyarrow and
 * R's arrow do; its Arrow table is handed over as an IPC stream and opened with Apache Arrow's
 * JavaScript library.
 */
import { readFileSync } from 'node:fs';
import { tableFromIPC, type Table } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';

export interface ArrowFieldRead {
  name: string;
  /** Arrow's text of the type, e.g. `Int32`, `Dictionary<Int32, Utf8>`. */
  type: string;
  metadata: Record<string, string>;
}

export interface ArrowRead {
  fields: ArrowFieldRead[];
  /** The values of one column as JavaScript values (a dictionary's as its strings). */
  values(name: string): unknown[];
}

/** The Arrow schema and columns the Rust Arrow reader makes of the Parquet file at `path`. */
export function readArrowSchema(path: string): Promise<ArrowRead> {
  const table: Table = tableFromIPC(readParquet(readFileSync(path)).intoIPCStream());
  return Promise.resolve({
    fields: table.schema.fields.map((f) => ({ name: f.name, type: String(f.type), metadata: Object.fromEntries(f.metadata) })),
    values: (name) => [...(table.getChild(name) ?? [])],
  });
}
