/**
 * How each export column becomes a Stata variable (docs/export.md#stata): its storage type, the
 * bytes it takes in a row, its display format and which codes are CSPro special values. Pure.
 */
import type { ExportColumn, TableStats } from '../../model.js';
import { SPECIAL_LETTER } from './missing-values.js';

/** Longest fixed-width string (`str2045`); longer columns are `strL`. */
const MAX_STR_WIDTH = 2045;

/** Type codes of `<variable_types>`: 1–2045 are `str#`. */
const TYPE_CODE = {
  strl: 32768,
  double: 65526,
  float: 65527,
  long: 65528,
  int: 65529,
  byte: 65530,
} as const;

export type Storage = 'byte' | 'int' | 'long' | 'double' | 'str' | 'strl';

/** What a cell holds, which decides how it is read before it is stored. */
export type CellKind = 'integer' | 'decimal' | 'string' | 'boolean' | 'timestamp';

export interface StataVariable {
  column: ExportColumn;
  storage: Storage;
  /** The `<variable_types>` code. */
  typeCode: number;
  /** Bytes the variable takes in each observation. */
  bytes: number;
  /** Stata display format, e.g. `%8.0g`, `%12.2f`, `%tc`, `%20s`. */
  format: string;
  cell: CellKind;
  /** Codes of the column's value set that are CSPro special values → letter (1 = `.a`). */
  specials: ReadonlyMap<number, number>;
}

/** Milliseconds from Stata's epoch (1960-01-01) to the Unix epoch: `%tc` counts from 1960. */
export const TC_EPOCH_OFFSET_MS = 315_619_200_000;

function storageOfIntegerDigits(digits: number): 'byte' | 'int' | 'long' | 'double' {
  // `digits` counts the sign, so 2 digits is −9..99, 4 is −999..9999, 9 is up to 999,999,999:
  // each fits the non-missing range of byte (−127..100), int (−32767..32740), long (to 2147483620).
  if (digits <= 2) return 'byte';
  if (digits <= 4) return 'int';
  if (digits <= 9) return 'long';
  return 'double';
}

const INTEGER_FORMAT = { byte: '%8.0g', int: '%8.0g', long: '%12.0g' } as const;

/** Largest non-missing `long` (docs/export.md#stata). */
const MAX_LONG = 2_147_483_620;

/**
 * A column of 10 or more digits (store revisions, wide codes) whose values, all numbers, all fit
 * a `long` is one: integers stay integers (docs/export.md#integer-columns). Specials counted in
 * `maxAbs` only make this more cautious.
 */
function fitsLong(stats: TableStats, i: number): boolean {
  const abs = stats.maxAbs?.[i];
  return abs !== undefined && abs <= MAX_LONG && (stats.maxBytes[i] ?? 0) === 0;
}

function numeric(storage: 'byte' | 'int' | 'long' | 'double', format: string) {
  const bytes = { byte: 1, int: 2, long: 4, double: 8 }[storage];
  return { storage, typeCode: TYPE_CODE[storage], bytes, format };
}

function specialsOf(column: ExportColumn): Map<number, number> {
  const out = new Map<number, number>();
  for (const v of column.valueSet?.values ?? []) {
    if (v.special && typeof v.value === 'number') out.set(v.value, SPECIAL_LETTER[v.special]);
  }
  return out;
}

/** The Stata variable of each column, in order; string widths come from the first pass. */
export function planVariables(columns: readonly ExportColumn[], stats: TableStats): StataVariable[] {
  return columns.map((column, i) => {
    const type = column.type;
    const none = new Map<number, number>();
    switch (type.kind) {
      case 'integer': {
        const byDigits = storageOfIntegerDigits(type.digits);
        const storage = byDigits === 'double' && fitsLong(stats, i) ? 'long' : byDigits;
        const format = storage === 'double' ? `%${Math.min(type.digits + 1, 21)}.0f` : INTEGER_FORMAT[storage];
        return { column, ...numeric(storage, format), cell: 'integer', specials: specialsOf(column) };
      }
      case 'decimal': {
        const width = Math.min(Math.max(type.precision + 2, 3), 30);
        const format = `%${width}.${Math.min(type.scale, width - 2)}f`;
        return { column, ...numeric('double', format), cell: 'decimal', specials: specialsOf(column) };
      }
      case 'boolean':
        return { column, ...numeric('byte', '%8.0g'), cell: 'boolean', specials: none };
      case 'timestamp':
        return { column, ...numeric('double', '%tc'), cell: 'timestamp', specials: none };
      case 'varchar':
      case 'text':
      case 'guid': {
        const width = Math.max(1, stats.maxBytes[i] ?? 0);
        if (width > MAX_STR_WIDTH) {
          return { column, storage: 'strl', typeCode: TYPE_CODE.strl, bytes: 8, format: '%9s', cell: 'string', specials: none };
        }
        return { column, storage: 'str', typeCode: width, bytes: width, format: `%${width}s`, cell: 'string', specials: none };
      }
    }
  });
}
