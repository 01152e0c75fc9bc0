/**
 * CSV text (RFC 4180; docs/export.md#csv), pure: a field is quoted when it holds `"`, `,`, CR or
 * LF (quotes doubled inside), lines end in CRLF, NULL is an empty field and an empty string a
 * quoted empty field (`""`), so readers that care can tell them apart.
 */
import type { ExportCell, ExportColumn } from '../../model.js';
import { labellingPart } from '../../value-sets.js';

/** Line end of every record, the header included (RFC 4180 section 2). */
const CSV_EOL = '\r\n';
/** UTF-8 byte order mark, written first with `bom` (Excel reads UTF-8 only with it). */
export const UTF8_BOM = '\uFEFF';

const NEEDS_QUOTES = /[",\r\n]/;

/** One text field: as it is, or quoted when RFC 4180 requires it. */
export function csvField(text: string): string {
  if (text === '') return '""';
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One cell: NULL empty, booleans `1`/`0` (what every statistics package reads as a number),
 * numbers in JavaScript's shortest round-trip form, texts through csvField.
 */
export function csvCell(cell: ExportCell): string {
  if (cell === null) return '';
  if (typeof cell === 'boolean') return cell ? '1' : '0';
  if (typeof cell === 'number') return String(cell);
  return csvField(cell);
}

/** One record: the fields joined by commas, ended by CRLF. */
export function csvLine(fields: readonly string[]): string {
  return fields.join(',') + CSV_EOL;
}

/**
 * Per column, its value labels by code (single codes only: a range label does not say which
 * value it was; blank labels name nothing), or undefined for a column without such labels.
 * Numeric codes are keyed by their text in JavaScript's form, as csvCell writes them.
 */
export function valueLabelMaps(columns: readonly ExportColumn[]): (Map<string, string> | undefined)[] {
  return columns.map((c) => {
    const set = labellingPart(c.valueSet);
    if (!set || set.values.length === 0) return undefined;
    const m = new Map<string, string>();
    for (const v of set.values) {
      const key = typeof v.value === 'number' ? String(v.value) : v.value;
      if (!m.has(key)) m.set(key, v.label);
    }
    return m;
  });
}

/** A cell with `--labels labels`: the code's value label when it has one, else the code. */
export function labelledCell(cell: ExportCell, labels: Map<string, string> | undefined): string {
  if (labels === undefined || cell === null || typeof cell === 'boolean') return csvCell(cell);
  const key = typeof cell === 'number' ? String(cell) : cell.trimEnd();
  const label = labels.get(key);
  return label === undefined ? csvCell(cell) : csvField(label);
}
