/**
 * PostgreSQL COPY text format (pure). https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2
 * Columns are separated by a tab, rows end with a newline, NULL is `\N`, and a backslash, tab,
 * newline or carriage return inside a value must be written as `\\`, `\t`, `\n`, `\r`.
 */
import type { CellValue, ColumnType, TablePlan } from '../../plan-model.js';
import { booleanValue, decimalText, integerText, textValue } from '../encode-common.js';
import type { RowWriter } from '../text-chunks.js';
import { quoteIdent } from './ddl.js';

const NEEDS_ESCAPE = /[\\\t\n\r\0]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '' };

/**
 * Escapes a string for COPY text format. U+0000 is dropped: PostgreSQL text cannot hold it at
 * all, and one such byte would fail the whole COPY batch. Text cells have lost it already in
 * textValue (the rule of every dialect, docs/breakout.md); this keeps the format safe on its own.
 */
export function escapeCopyText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(/[\\\t\n\r\0]/g, (c) => ESCAPES[c]!) : s;
}

const T = 116; // 't'
const F = 102; // 'f'
const TAB = 9;
const NEWLINE = 10;
const BACKSLASH = 92;
const N = 78; // 'N'

// What a column's non-null cells are written as; one switch over these in the row loop instead of
// a function per column keeps the loop's calls monomorphic.
const INTEGER = 0;
const DECIMAL = 1;
const BOOLEAN = 2;
/** Timestamps (ISO 8601 with Z is valid timestamptz input) and guids: plain ASCII, never escaped. */
const PLAIN = 3;
const TEXT = 4;

function cellKind(type: ColumnType): number {
  switch (type.kind) {
    case 'integer':
      return INTEGER;
    case 'decimal':
      return DECIMAL;
    case 'boolean':
      return BOOLEAN;
    case 'timestamp':
    case 'guid':
      return PLAIN;
    default:
      return TEXT;
  }
}

/**
 * Writes a row as one COPY text line (newline included): cells separated by tabs, NULL (or
 * undefined) as `\N`.
 */
export function copyRowWriter(table: TablePlan): RowWriter {
  const kinds = Uint8Array.from(table.columns, (c) => cellKind(c.type));
  const scales = table.columns.map((c) => (c.type.kind === 'decimal' ? c.type.scale : 0));
  const n = kinds.length;
  return (row, out) => {
    for (let i = 0; i < n; i++) {
      if (i > 0) out.byte(TAB);
      const v = row[i];
      if (v === null || v === undefined) {
        out.byte(BACKSLASH);
        out.byte(N);
        continue;
      }
      switch (kinds[i]) {
        case INTEGER:
          if (typeof v === 'number') out.integer(v);
          else out.text(integerText(v));
          break;
        case DECIMAL:
          out.text(decimalText(v, scales[i]!));
          break;
        case BOOLEAN:
          out.byte(booleanValue(v) ? T : F);
          break;
        case PLAIN:
          out.text(String(v));
          break;
        default: {
          const s = typeof v === 'string' ? v : String(v);
          if (!out.unescapedAscii(s)) out.text(escapeCopyText(textValue(s)));
        }
      }
    }
    out.byte(NEWLINE);
    out.rows++;
  };
}

/** The COPY statement whose format matches copyRowWriter. */
export function copyStatement(table: TablePlan): string {
  const cols = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `COPY ${quoteIdent(table.name)} (${cols}) FROM STDIN`;
}

/** A cell as a bind parameter (upserts, filters): pg serialises numbers, strings and booleans itself. */
export function paramValue(type: ColumnType, v: CellValue): unknown {
  if (v === null) return null;
  if (type.kind === 'varchar' || type.kind === 'text') return textValue(v);
  return type.kind === 'boolean' ? booleanValue(v) : v;
}
