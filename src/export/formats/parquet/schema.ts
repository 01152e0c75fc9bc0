/**
 * Parquet schema elements for export columns (docs/export.md#parquet). Pure: a column's
 * `ColumnType` (and whether its value labels replace its codes) decides its physical and
 * logical type, chosen so that DuckDB, pandas/pyarrow and Spark read each one as the
 * natural type of that language.
 */
import type { ParquetWriter } from 'hyparquet-writer';
import type { ExportColumn, ExportTable, LabelsMode } from '../../model.js';
import { AppError } from '../../../shared/errors.js';
import { labellingPart } from '../../value-sets.js';
import { decimalByteLength } from './decimal.js';

/** One element of a Parquet schema, as hyparquet-writer takes it. */
export type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** How the cells of one column become the values the Parquet encoder takes. */
export type ParquetEncoding =
  | { kind: 'int32' }
  | { kind: 'int64' }
  /** DECIMAL(precision, scale): the encoder takes the unscaled bigint. */
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'timestamp' }
  /** The value label of the code (the code as text when it has none): `--labels labels`. */
  | { kind: 'label' }
  /** A label column of `--labels both` (`labelsOf`): its cells are labels already, or null. */
  | { kind: 'label-column' };

/**
 * True for the columns of value labels (`--labels labels` and `both`): few distinct texts, written
 * dictionary-encoded so that the file stays small and Arrow readers can read them as categories
 * (docs/export.md#parquet).
 */
export function holdsLabels(encoding: ParquetEncoding): boolean {
  return encoding.kind === 'label' || encoding.kind === 'label-column';
}

/** DECIMAL precision Parquet readers accept (Spark, pyarrow's decimal128 and DuckDB stop at 38). */
const MAX_DECIMAL_PRECISION = 38;

/**
 * The encoding of one column's cells; `labels` swaps coded columns for their labels. A value set
 * whose every label is blank labels nothing: its column keeps its codes and its type.
 */
export function columnEncoding(column: ExportColumn, labels: LabelsMode): ParquetEncoding {
  if (column.labelsOf !== undefined) return { kind: 'label-column' };
  if (labels === 'labels' && labellingPart(column.valueSet)) return { kind: 'label' };
  const t = column.type;
  switch (t.kind) {
    case 'integer':
      if (t.digits <= 9) return { kind: 'int32' };
      if (t.digits <= 18) return { kind: 'int64' };
      return decimal(column, t.digits, 0);
    case 'decimal':
      return decimal(column, t.precision, t.scale);
    case 'varchar':
    case 'text':
    case 'guid':
      return { kind: 'string' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'timestamp':
      return { kind: 'timestamp' };
  }
}

function decimal(column: ExportColumn, precision: number, scale: number): ParquetEncoding {
  if (precision > MAX_DECIMAL_PRECISION || scale > precision) {
    throw new AppError(
      'PARQUET_VALUE_INVALID',
      `Column ${column.name} needs DECIMAL(${precision}, ${scale}), beyond what Parquet readers take (precision up to ${MAX_DECIMAL_PRECISION})`,
      { column: column.name, precision, scale },
    );
  }
  return { kind: 'decimal', precision, scale };
}

/** The schema element of one column: every column is OPTIONAL (a blank is a null). */
export function schemaElement(name: string, encoding: ParquetEncoding): SchemaElement {
  const base = { name, repetition_type: 'OPTIONAL' as const };
  switch (encoding.kind) {
    case 'int32':
      return { ...base, type: 'INT32' };
    case 'int64':
      return { ...base, type: 'INT64' };
    case 'decimal': {
      const { precision, scale } = encoding;
      const physical: Pick<SchemaElement, 'type' | 'type_length'> =
        precision <= 9
          ? { type: 'INT32' }
          : precision <= 18
            ? { type: 'INT64' }
            : { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalByteLength(precision) };
      return {
        ...base,
        ...physical,
        converted_type: 'DECIMAL',
        precision,
        scale,
        logical_type: { type: 'DECIMAL', precision, scale },
      };
    }
    case 'string':
    case 'label':
    case 'label-column':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'boolean':
      return { ...base, type: 'BOOLEAN' };
    case 'timestamp':
      return {
        ...base,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
  }
}

/** The whole file schema: a root group, then one leaf per column in table order. */
export function tableSchema(table: ExportTable, encodings: readonly ParquetEncoding[]): SchemaElement[] {
  return [{ name: 'schema', num_children: table.columns.length }, ...table.columns.map((c, i) => schemaElement(c.name, encodings[i]!))];
}
