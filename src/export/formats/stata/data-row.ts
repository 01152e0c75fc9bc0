/**
 * One observation of `<data>` (docs/export.md#stata): each cell in its variable's storage type,
 * CSPro special values as extended missing values, blanks as `.` (numbers) or "" (strings), strL
 * cells as (v,o) references whose contents go to `<strls>` as GSO blocks. Pure.
 */
import { AppError } from '../../../shared/errors.js';
import type { ExportCell } from '../../model.js';
import type { Release } from './header.js';
import { BYTE_RANGE, INT_RANGE, LONG_RANGE, MISSING_BYTE, MISSING_INT, MISSING_LONG, missingDoubleHigh } from './missing-values.js';
import { utf8 } from './text.js';
import { TC_EPOCH_OFFSET_MS, type StataVariable } from './variables.js';

/** Where a bad value is, for the error. */
export interface RowContext {
  table: string;
  /** 1-based observation number. */
  row: number;
}

function unrepresentable(variable: StataVariable, ctx: RowContext, cell: ExportCell, why: string): AppError {
  const shown = JSON.stringify(cell).slice(0, 60);
  return new AppError(
    'STATA_VALUE_UNREPRESENTABLE',
    `Table ${ctx.table}, column ${variable.column.name}, row ${ctx.row}: ${shown} ${why}`,
    { table: ctx.table, column: variable.column.name, row: ctx.row },
  );
}

function tooWide(variable: StataVariable, ctx: RowContext, bytes: number): AppError {
  return new AppError(
    'STATA_STATS_MISMATCH',
    `Table ${ctx.table}, column ${variable.column.name}, row ${ctx.row}: a string of ${bytes} bytes is wider than str${variable.bytes} measured by the first pass`,
    { table: ctx.table, column: variable.column.name, row: ctx.row },
  );
}

/** The number in a numeric cell, or null for blank. */
function numberOf(variable: StataVariable, cell: ExportCell, ctx: RowContext): number | null {
  if (cell === null || cell === '') return null;
  if (typeof cell === 'boolean') return cell ? 1 : 0;
  const n = typeof cell === 'number' ? cell : Number(cell.trim());
  if (typeof cell === 'string' && cell.trim() === '') return null;
  if (!Number.isFinite(n)) throw unrepresentable(variable, ctx, cell, 'is not a number');
  if (variable.cell === 'integer' && !Number.isSafeInteger(n)) {
    throw unrepresentable(variable, ctx, cell, 'is not an integer Stata holds exactly (beyond 2^53 or with a fraction)');
  }
  return n;
}

function writeDouble(out: Buffer, at: number, value: number | null, letter: number): void {
  if (value === null) {
    out.writeUInt32LE(0, at);
    out.writeUInt32LE(missingDoubleHigh(letter), at + 4);
  } else {
    out.writeDoubleLE(value, at);
  }
}

function writeNumber(out: Buffer, at: number, variable: StataVariable, value: number | null, ctx: RowContext, cell: ExportCell): void {
  let letter = 0;
  if (value !== null) {
    const special = variable.specials.get(value);
    if (special !== undefined) {
      letter = special;
      value = null;
    }
  }
  const outOfRange = (range: { min: number; max: number }): boolean => value !== null && (value < range.min || value > range.max);
  switch (variable.storage) {
    case 'byte':
      if (outOfRange(BYTE_RANGE)) throw unrepresentable(variable, ctx, cell, 'is outside the range of a Stata byte');
      out.writeInt8(value === null ? MISSING_BYTE + letter : value, at);
      return;
    case 'int':
      if (outOfRange(INT_RANGE)) throw unrepresentable(variable, ctx, cell, 'is outside the range of a Stata int');
      out.writeInt16LE(value === null ? MISSING_INT + letter : value, at);
      return;
    case 'long':
      if (outOfRange(LONG_RANGE)) throw unrepresentable(variable, ctx, cell, 'is outside the range of a Stata long');
      out.writeInt32LE(value === null ? MISSING_LONG + letter : value, at);
      return;
    default:
      writeDouble(out, at, value, letter);
  }
}

function timestampOf(variable: StataVariable, cell: ExportCell, ctx: RowContext): number | null {
  if (cell === null || cell === '') return null;
  const ms = typeof cell === 'string' ? Date.parse(cell) : Number.NaN;
  if (!Number.isFinite(ms)) throw unrepresentable(variable, ctx, cell, 'is not an ISO 8601 timestamp');
  return ms + TC_EPOCH_OFFSET_MS;
}

function textOf(cell: ExportCell): string {
  if (cell === null) return '';
  return typeof cell === 'string' ? cell : String(cell);
}

/** The 8 bytes of a strL reference (v,o): v in 2 bytes and o in 6 (118), or 3 and 5 (119). */
export function writeStrlRef(out: Buffer, at: number, release: Release, v: number, o: number): void {
  const vBytes = release === 118 ? 2 : 3;
  out.writeUIntLE(v, at, vBytes);
  out.writeUIntLE(o, at + vBytes, 8 - vBytes);
}

/** One GSO block of `<strls>`: UTF-8 text with its NUL (type 130), or binary (129) if it holds a NUL. */
export function encodeGso(v: number, o: number, contents: Uint8Array): Buffer {
  const binary = contents.includes(0);
  const len = contents.length + (binary ? 0 : 1);
  const out = Buffer.alloc(3 + 4 + 8 + 1 + 4 + len);
  out.write('GSO', 0, 'latin1');
  out.writeUInt32LE(v, 3);
  out.writeBigUInt64LE(BigInt(o), 7);
  out.writeUInt8(binary ? 129 : 130, 15);
  out.writeUInt32LE(len, 16);
  out.set(contents, 20);
  return out;
}

/** Bytes of one observation. */
export function rowBytes(variables: readonly StataVariable[]): number {
  return variables.reduce((sum, v) => sum + v.bytes, 0);
}

/**
 * Writes one observation into `out` at `at` (the bytes must be zero: str# padding is NUL) and
 * returns the GSO blocks of its non-empty strL cells, in variable order.
 */
export function encodeRowInto(
  out: Buffer,
  at: number,
  variables: readonly StataVariable[],
  cells: readonly ExportCell[],
  release: Release,
  ctx: RowContext,
): Buffer[] {
  const gsos: Buffer[] = [];
  variables.forEach((variable, i) => {
    const cell = cells[i] ?? null;
    switch (variable.cell) {
      case 'integer':
      case 'decimal':
      case 'boolean':
        writeNumber(out, at, variable, numberOf(variable, cell, ctx), ctx, cell);
        break;
      case 'timestamp':
        writeDouble(out, at, timestampOf(variable, cell, ctx), 0);
        break;
      case 'string': {
        const bytes = utf8(textOf(cell));
        if (variable.storage === 'strl') {
          if (bytes.length === 0) writeStrlRef(out, at, release, 0, 0);
          else {
            writeStrlRef(out, at, release, i + 1, ctx.row);
            gsos.push(encodeGso(i + 1, ctx.row, bytes));
          }
        } else {
          if (bytes.length > variable.bytes) throw tooWide(variable, ctx, bytes.length);
          out.set(bytes, at);
        }
        break;
      }
    }
    at += variable.bytes;
  });
  return gsos;
}
