/**
 * How each export column becomes an SPSS variable (docs/export.md#spss): its storage (numeric
 * or string of a width in bytes), print format, segments, short name, user-missing values and
 * value labels. Pure: the same table and stats give the same variables.
 */
import type { ExportColumn, ExportTable, TableStats } from '../../model.js';
import { labellingPart } from '../../value-sets.js';
import { missingValues, type MissingValues } from './missing-values.js';
import { longNames, ShortNames } from './names.js';
import { utf8 } from './text.js';

/** Widest string SPSS stores, in bytes. */
export const MAX_STRING_BYTES = 32767;
/** Widest numeric item (digits) that a double holds exactly; wider ones are written as text. */
const MAX_NUMERIC_DIGITS = 15;
/** A string wider than this is a very long string, stored in segments. */
const MAX_SHORT_STRING = 255;
/** Data bytes each segment of a very long string carries, but for the last. */
const SEGMENT_STEP = 252;

/** Format type codes of the variable record (print and write formats). */
const FORMAT = { A: 1, F: 5, DATETIME: 22 } as const;

export interface PrintFormat {
  type: number;
  width: number;
  decimals: number;
}

/** How a cell of the column is turned into the variable's value. */
export type CellKind = 'number' | 'boolean' | 'timestamp' | 'string';

export interface Segment {
  shortName: string;
  /** 0 for numeric, else the segment's string width (at most 255). */
  width: number;
}

export type ValueLabel = { value: number; label: string } | { value: string; label: string };

export interface SpssVariable {
  column: number;
  longName: string;
  label: string;
  cell: CellKind;
  /** 0 for a numeric variable, else its string width in bytes. */
  width: number;
  format: PrintFormat;
  segments: Segment[];
  missing: MissingValues;
  valueLabels: ValueLabel[];
  /** 1 nominal, 2 ordinal, 3 scale (display parameters record). */
  measure: 1 | 2 | 3;
}

/** The units of 8 bytes a segment takes in each case. */
export function segmentUnits(width: number): number {
  return width === 0 ? 1 : Math.ceil(width / 8);
}

/** Widths of the segments of a string of `width` bytes (one segment unless very long). */
export function segmentWidths(width: number): number[] {
  if (width <= MAX_SHORT_STRING) return [width];
  const n = Math.ceil(width / SEGMENT_STEP);
  return Array.from({ length: n }, (_, i) => (i < n - 1 ? 255 : width - (n - 1) * SEGMENT_STEP));
}

/** Plans the variables of `table`, using the first pass's string widths. */
export function planVariables(table: ExportTable, stats: TableStats): SpssVariable[] {
  const names = longNames(table.columns.map((c) => c.name));
  const shorts = new ShortNames();
  return table.columns.map((column, i) => {
    const base = storage(column, stats.maxBytes[i] ?? 0, stats.maxAbs?.[i]);
    const widths = base.width === 0 ? [0] : segmentWidths(base.width);
    const segments = widths.map((width, s) => ({ shortName: shorts.next(names[i]!, s), width }));
    return { column: i, longName: names[i]!, label: column.label, segments, ...base };
  });
}

type Storage = Omit<SpssVariable, 'column' | 'longName' | 'label' | 'segments'>;

/** Largest magnitude of a 15-digit integer: a double holds it exactly. */
const MAX_EXACT_15 = 999_999_999_999_999;

function storage(column: ExportColumn, maxBytes: number, maxAbs: number | undefined): Storage {
  const type = column.type;
  switch (type.kind) {
    case 'integer':
      // A wide column (`revision`, 18 digits) whose values all have 15 digits or fewer stays a
      // number (docs/export.md#integer-columns); one that holds a longer value is text.
      if (type.digits <= MAX_NUMERIC_DIGITS || (maxAbs !== undefined && maxAbs <= MAX_EXACT_15 && maxBytes === 0))
        return numeric(column, { type: FORMAT.F, width: clamp(type.digits, 1, 40), decimals: 0 }, true);
      return text(column, maxBytes, type.digits);
    case 'decimal':
      if (type.precision <= MAX_NUMERIC_DIGITS) {
        const width = clamp(type.precision + 2, 3, 40);
        return numeric(column, { type: FORMAT.F, width, decimals: Math.min(type.scale, 16, width - 2) }, false);
      }
      return text(column, maxBytes, type.precision + 2);
    case 'boolean':
      return {
        cell: 'boolean',
        width: 0,
        format: { type: FORMAT.F, width: 1, decimals: 0 },
        missing: { kind: 'none' },
        valueLabels: [
          { value: 0, label: 'No' },
          { value: 1, label: 'Yes' },
        ],
        measure: 1,
      };
    case 'timestamp':
      return {
        cell: 'timestamp',
        width: 0,
        format: { type: FORMAT.DATETIME, width: 24, decimals: 3 },
        missing: { kind: 'none' },
        valueLabels: [],
        measure: 3,
      };
    case 'guid':
      return text(column, maxBytes, 36);
    case 'varchar':
    case 'text':
      return text(column, maxBytes, 1);
  }
}

function numeric(column: ExportColumn, format: PrintFormat, integer: boolean): Storage {
  const valueLabels = numericLabels(column);
  return {
    cell: 'number',
    width: 0,
    format,
    missing: missingValues(column.valueSet, integer),
    valueLabels,
    measure: valueLabels.length > 0 ? 1 : 3,
  };
}

/**
 * A string variable: as wide as the longest value of the first pass, at least `least` bytes and
 * wide enough for every labelled code, at most 32767 bytes.
 */
function text(column: ExportColumn, maxBytes: number, least: number): Storage {
  const valueLabels = stringLabels(column);
  let width = Math.max(maxBytes, least, 1);
  for (const l of valueLabels) width = Math.max(width, utf8(String(l.value)).length);
  width = Math.min(width, MAX_STRING_BYTES);
  const kept = valueLabels.filter((l) => utf8(String(l.value)).length <= width);
  return {
    cell: 'string',
    width,
    format: { type: FORMAT.A, width: Math.min(width, 255), decimals: 0 },
    missing: { kind: 'none' },
    valueLabels: kept,
    measure: 1,
  };
}

/**
 * Single-value labels of a numeric value set; ranges are not SPSS value labels, and a blank label
 * would hide its code (docs/export.md#spss).
 */
function numericLabels(column: ExportColumn): ValueLabel[] {
  const set = labellingPart(column.valueSet);
  if (!set?.numeric) return [];
  const seen = new Set<number>();
  const out: ValueLabel[] = [];
  for (const v of set.values) {
    const value = typeof v.value === 'number' ? v.value : Number(v.value);
    if (!Number.isFinite(value) || seen.has(value)) continue;
    seen.add(value);
    out.push({ value, label: v.label });
  }
  return out;
}

/** Labels of a string variable: an alpha value set's codes, or a wide numeric set's codes as text (blank labels left out). */
function stringLabels(column: ExportColumn): ValueLabel[] {
  const set = labellingPart(column.valueSet);
  if (!set) return [];
  const seen = new Set<string>();
  const out: ValueLabel[] = [];
  for (const v of set.values) {
    const value = typeof v.value === 'number' ? numberText(v.value) : v.value.replace(/ +$/, '');
    if (seen.has(value)) continue;
    seen.add(value);
    out.push({ value, label: v.label });
  }
  return out;
}

/** A number as plain decimal text (no exponent), the way wide numeric codes are stored as text. */
export function numberText(value: number): string {
  return Number.isInteger(value) ? BigInt(value).toString() : String(value);
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, n));
}
