/**
 * The `ARROW:schema` key of a Parquet export (docs/export.md#column-descriptions): the file's
 * schema as an Arrow IPC schema message, base64, as Arrow's own Parquet writers store it. Arrow
 * readers (pyarrow and so pandas, R's arrow, the Rust arrow crate) take the column types from it
 * and keep each field's key-value metadata: there each column gets its variable label as
 * `description`, which Parquet's own schema has no place for. Label columns are declared
 * dictionaries of strings, so those readers give categories (pandas) and factors (R).
 * Written with Apache Arrow's JavaScript library. Pure.
 */
import {
  Bool,
  Decimal,
  Dictionary,
  Field,
  Int32,
  Int64,
  Schema,
  Table,
  TimestampMillisecond,
  Utf8,
  tableToIPC,
  type DataType,
} from 'apache-arrow';
import type { ExportTable } from '../../model.js';
import type { ParquetEncoding } from './schema.js';

/** The key Arrow's Parquet readers look the schema up by. */
const ARROW_SCHEMA_KEY = 'ARROW:schema';

/** The field metadata key of a column's variable label. */
const DESCRIPTION_KEY = 'description';

/** The Arrow type that matches a column's Parquet schema element (schema.ts), so readers accept it as the column's type. */
function arrowType(encoding: ParquetEncoding, dictionaryId: () => number): DataType {
  switch (encoding.kind) {
    case 'int32':
      return new Int32();
    case 'int64':
      return new Int64();
    case 'decimal':
      return new Decimal(encoding.scale, encoding.precision, 128);
    case 'string':
      return new Utf8();
    case 'label':
    case 'label-column':
      return new Dictionary(new Utf8(), new Int32(), dictionaryId());
    case 'boolean':
      return new Bool();
    case 'timestamp':
      return new TimestampMillisecond('UTC');
  }
}

/** The `ARROW:schema` entry of one table's file. */
export function arrowSchemaEntry(table: ExportTable, encodings: readonly ParquetEncoding[]): { key: string; value: string } {
  let nextId = 0;
  const fields = table.columns.map(
    (c, i) =>
      new Field(
        c.name,
        arrowType(encodings[i]!, () => nextId++),
        true,
        new Map([[DESCRIPTION_KEY, c.label]]),
      ),
  );
  // A stream of no batches is the schema message (continuation marker, length, flatbuffer) and
  // the end-of-stream marker; the value is the message alone, as Arrow's writers store it.
  const stream = tableToIPC(new Table(new Schema(fields)), 'stream');
  const length = new DataView(stream.buffer, stream.byteOffset, stream.byteLength).getInt32(4, true);
  return { key: ARROW_SCHEMA_KEY, value: Buffer.from(stream.subarray(0, 8 + length)).toString('base64') };
}
