/**
 * One export cell as the value of its SPSS variable (docs/export.md#spss): numbers as doubles,
 * booleans as 0/1, timestamps as SPSS date-times (seconds since 14 October 1582), blanks as
 * SYSMIS for numbers and spaces for strings.
 */
import { AppError } from '../../../shared/errors.js';
import type { ExportCell } from '../../model.js';
import { SYSMIS } from './dictionary.js';
import { cutUtf8, utf8 } from './text.js';
import { MAX_STRING_BYTES, numberText, type SpssVariable } from './variables.js';

/** Seconds from the SPSS epoch (1582-10-14 00:00 UTC, Gregorian) to the Unix epoch. */
const SPSS_EPOCH_OFFSET = -Date.UTC(1582, 9, 14) / 1000;

/** The double a numeric variable stores for `cell`. */
export function numericValue(variable: SpssVariable, cell: ExportCell, row: number): number {
  if (cell === null) return SYSMIS;
  if (variable.cell === 'boolean') {
    if (typeof cell === 'boolean') return cell ? 1 : 0;
    if (cell === 0 || cell === 1) return cell;
    throw bad(variable, cell, row, 'a boolean');
  }
  if (variable.cell === 'timestamp') {
    const ms = typeof cell === 'string' ? Date.parse(cell) : NaN;
    if (!Number.isFinite(ms)) throw bad(variable, cell, row, 'an ISO 8601 timestamp');
    return ms / 1000 + SPSS_EPOCH_OFFSET;
  }
  const value = typeof cell === 'number' ? cell : typeof cell === 'string' && cell.trim() !== '' ? Number(cell) : NaN;
  if (!Number.isFinite(value)) throw bad(variable, cell, row, 'a number');
  return value;
}

/**
 * The bytes a string variable stores for `cell`, at most its width. Longer values mean the
 * first pass measured other data (`EXPORT_SPSS_STATS`), except beyond 32767 bytes, the format's
 * limit, where the value is cut on a character boundary.
 */
export function stringValue(variable: SpssVariable, cell: ExportCell, row: number): Uint8Array {
  if (cell === null) return EMPTY;
  const text = typeof cell === 'string' ? cell : typeof cell === 'number' ? numberText(cell) : String(cell);
  const bytes = utf8(text);
  if (bytes.length <= variable.width) return bytes;
  if (variable.width === MAX_STRING_BYTES) return cutUtf8(bytes, MAX_STRING_BYTES);
  throw new AppError(
    'EXPORT_SPSS_STATS',
    `Row ${row + 1}, column ${variable.longName}: a value of ${bytes.length} bytes is wider than the ${variable.width} bytes the first pass measured`,
    { column: variable.longName, row: row + 1 },
  );
}

const EMPTY = new Uint8Array(0);

function bad(variable: SpssVariable, cell: ExportCell, row: number, what: string): AppError {
  return new AppError('EXPORT_SPSS_VALUE', `Row ${row + 1}, column ${variable.longName}: ${JSON.stringify(cell)} is not ${what}`, {
    column: variable.longName,
    row: row + 1,
  });
}
