/**
 * Cells to Parquet values (docs/export.md#parquet). Pure: each function takes one export cell
 * and returns what hyparquet-writer encodes for the column's schema element (number, bigint,
 * string, boolean or null), or throws PARQUET_VALUE_INVALID saying which column and row.
 */
import type { ExportCell, ExportColumn } from '../../model.js';
import { AppError } from '../../../shared/errors.js';
import { codeLabels, type CodeLabels } from '../../code-labels.js';
import { decimalLimit, toUnscaled } from './decimal.js';
import type { ParquetEncoding } from './schema.js';

export type ParquetValue = number | bigint | string | boolean | null;

/** Turns the cells of one column into values; `row` (1-based) only serves error messages. */
export type CellEncoder = (cell: ExportCell, row: number) => ParquetValue;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
// ISO 8601 with a time zone: without one `Date.parse` would read the time as local.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

function invalid(column: ExportColumn, row: number, cell: ExportCell, expected: string): AppError {
  return new AppError('PARQUET_VALUE_INVALID', `Row ${row}, column ${column.name}: ${JSON.stringify(cell)} is not ${expected}`, {
    column: column.name,
    row,
    value: cell,
  });
}

function asBigInt(cell: ExportCell): bigint | undefined {
  if (typeof cell === 'number') return Number.isSafeInteger(cell) ? BigInt(cell) : undefined;
  if (typeof cell === 'string' && INTEGER_TEXT.test(cell)) return BigInt(cell.trim());
  return undefined;
}

/** The encoder of one column's cells. */
export function cellEncoder(column: ExportColumn, encoding: ParquetEncoding): CellEncoder {
  switch (encoding.kind) {
    case 'int32':
      return (cell, row) => {
        if (cell === null) return null;
        const n = typeof cell === 'string' && INTEGER_TEXT.test(cell) ? Number(cell) : cell;
        if (typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX) return n;
        throw invalid(column, row, cell, 'a 32-bit integer');
      };
    case 'int64':
      return (cell, row) => {
        if (cell === null) return null;
        const n = asBigInt(cell);
        if (n !== undefined && n >= INT64_MIN && n <= INT64_MAX) return n;
        throw invalid(column, row, cell, 'a 64-bit integer');
      };
    case 'decimal': {
      const { precision, scale } = encoding;
      const limit = decimalLimit(precision);
      return (cell, row) => {
        if (cell === null) return null;
        const unscaled = typeof cell === 'number' || typeof cell === 'string' ? toUnscaled(cell, scale) : undefined;
        if (unscaled === undefined || unscaled >= limit || unscaled <= -limit) {
          throw invalid(column, row, cell, `a number that fits DECIMAL(${precision}, ${scale})`);
        }
        // hyparquet-writer takes the unscaled bigint for every physical type (INT32 narrowed).
        return unscaled;
      };
    }
    case 'string':
    case 'label-column':
      return (cell, row) => {
        if (cell === null) return null;
        if (typeof cell === 'string') return cell;
        if (typeof cell === 'number' && Number.isFinite(cell)) return String(cell);
        throw invalid(column, row, cell, 'a string');
      };
    case 'boolean':
      return (cell, row) => {
        if (cell === null) return null;
        if (typeof cell === 'boolean') return cell;
        if (cell === 0 || cell === 1) return cell === 1;
        throw invalid(column, row, cell, 'a boolean');
      };
    case 'timestamp':
      return (cell, row) => {
        if (cell === null) return null;
        const ms = typeof cell === 'string' && ISO_INSTANT.test(cell) ? Date.parse(cell) : NaN;
        if (Number.isFinite(ms)) return BigInt(ms);
        throw invalid(column, row, cell, 'an ISO 8601 timestamp');
      };
    case 'label':
      return labelEncoder(column, codeLabels(column)!);
  }
}

/**
 * `--labels labels`: the label of the code, the label of the range that holds it, or else the
 * code itself as text (a code without a label stays readable; a decimal code at its column's
 * scale). Special codes have labels in their value set like any other code; blank labels are
 * passed over (code-labels.ts, docs/export.md#value-sets).
 */
function labelEncoder(column: ExportColumn, labels: CodeLabels): CellEncoder {
  return (cell, row) => {
    if (cell === null) return null;
    if (typeof cell === 'boolean') throw invalid(column, row, cell, 'a code');
    return labels.label(cell) ?? labels.codeText(cell);
  };
}
