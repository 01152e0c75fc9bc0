/**
 * What each export cell becomes in an Excel sheet (docs/export.md#excel), pure: numbers as
 * numbers (a whole number is written without a decimal point, so readers take it as an integer),
 * text as text, times as Excel date-times (UTC), booleans 1/0 as in CSV, NULL as an empty cell.
 * With `--labels labels`, the value label of a coded cell instead of its code, as CSV does.
 */
import type { ExportCell, ExportColumn, WriterOptions } from '../../model.js';
import { valueLabelMaps } from '../csv/csv-text.js';

/** The most characters an Excel cell holds (Excel's specifications and limits); a longer text is cut. */
export const MAX_CELL_CHARS = 32_767;

/**
 * Significant digits Excel keeps of a number: a number with more (a 16-digit code) is written as
 * text, so that no digit changes when Excel opens or saves the file.
 */
const EXCEL_DIGITS = 15;

/** Number format of time cells: the date and time to the millisecond, read as a date-time by every reader. */
export const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss.000';

/** A cell as the workbook writer takes it: empty, a number, a text, or a UTC time. */
export type SheetCell = null | number | string | Date;

/** Turns one row of the export into sheet cells (same length and order). */
export type RowCells = (cells: readonly ExportCell[]) => SheetCell[];

/** Digits of a number's decimal text, leading zeros (and sign, point, exponent) aside. */
function significantDigits(text: string): number {
  const mantissa = text.toLowerCase().split('e')[0]!.replace(/[-+.]/g, '');
  return mantissa.replace(/^0+/, '').length;
}

/** A text cut to what a cell holds, never inside a surrogate pair. */
export function cellText(text: string): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  let end = MAX_CELL_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** A number cell, or its text when Excel would not keep every digit of it. */
function numberCell(v: number): number | string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v;
  return significantDigits(String(v)) <= EXCEL_DIGITS ? v : String(v);
}

/** One cell of a column of `kind`, codes as they are. */
export function sheetCell(kind: ExportColumn['type']['kind'], v: ExportCell): SheetCell {
  if (v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return numberCell(v);
  if (kind === 'timestamp') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? cellText(v) : new Date(t);
  }
  return cellText(v);
}

/**
 * How the rows of a table with `columns` become sheet cells under `options.labels`: codes (also
 * with `both`, whose label columns are the table's own), or (labels) each code's value label where it has one that is not blank, else the code (the same
 * labels CSV writes, docs/export.md#csv).
 */
export function rowCells(columns: readonly ExportColumn[], options: Pick<WriterOptions, 'labels'>): RowCells {
  const kinds = columns.map((c) => c.type.kind);
  const codes: RowCells = (cells) => cells.map((v, i) => sheetCell(kinds[i]!, v));
  switch (options.labels) {
    // With `both` the table already holds a label column after each coded column (the export
    // plan's), which is text: the coded columns keep their codes.
    case 'codes':
    case 'both':
      return codes;
    case 'labels': {
      const maps = valueLabelMaps(columns);
      return (cells) =>
        cells.map((v, i) => {
          const labels = maps[i];
          if (labels === undefined || v === null || typeof v === 'boolean') return sheetCell(kinds[i]!, v);
          const label = labels.get(typeof v === 'number' ? String(v) : v.trimEnd());
          return label === undefined ? sheetCell(kinds[i]!, v) : cellText(label);
        });
    }
  }
}
