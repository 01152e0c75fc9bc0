/**
 * PostgreSQL COPY text format (pure). https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2
 * Columns are separated by a tab, rows end with a newline, NULL is `\N`, and a backslash, tab,
 * newline or carriage return inside a value must be written as `\\`, `\t`, `\n`, `\r`.
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import { booleanValue, decimalText, integerText, textValue } from '../encode-common.js';
import { tabLineEncoder, type CellEncoder } from '../row-stream.js';
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

/** The encoder of one non-null cell of a column type. */
function copyCellEncoder(type: ColumnType): CellEncoder {
  switch (type.kind) {
    case 'integer':
      return integerText;
    case 'decimal':
      return (v) => decimalText(v, type.scale);
    case 'boolean':
      return (v) => (booleanValue(v) ? 't' : 'f');
    case 'timestamp':
    case 'guid':
      // ISO 8601 with Z is valid timestamptz input; guids are plain hex and dashes.
      return (v) => String(v);
    default:
      return (v) => escapeCopyText(textValue(v));
  }
}

/** Encodes a row as one COPY text line (newline included). */
export function copyLineEncoder(table: TablePlan): (row: Row) => string {
  return tabLineEncoder(table.columns.map((c) => copyCellEncoder(c.type)));
}

/** The COPY statement whose format matches copyLineEncoder. */
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
