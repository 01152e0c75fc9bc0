/**
 * The codebook of an export (docs/export.md#the-codebook): `codebook.csv`, written beside the
 * files of every format. One row per table (its file and label), one per column (export name,
 * the breakout column it holds, item, occurrence, label, type, length, decimals, value set) and
 * one per labelled value or range of that column's value set, right below it. Pure.
 */
import type { ColumnType } from '../breakout/plan-model.js';
import type { ExportColumn, ExportTable } from './model.js';
import { csvField, csvLine } from './formats/csv/csv-text.js';

export const CODEBOOK_FILE = 'codebook.csv';

const CODEBOOK_HEADER = [
  'file',
  'table',
  'kind',
  'name',
  'source',
  'item',
  'occurrence',
  'label',
  'type',
  'length',
  'decimals',
  'value_set',
  'value',
  'value_to',
  'special',
] as const;

type CodebookRow = Partial<Record<(typeof CODEBOOK_HEADER)[number], string | number>>;

/** Length and decimals of a column type as the codebook shows them ('' when not relevant). */
function lengthOf(type: ColumnType): { length: string | number; decimals: string | number } {
  switch (type.kind) {
    case 'integer':
      return { length: type.digits, decimals: 0 };
    case 'decimal':
      return { length: type.precision, decimals: type.scale };
    case 'varchar':
      return { length: type.length, decimals: '' };
    case 'guid':
      return { length: 36, decimals: '' };
    default:
      return { length: '', decimals: '' };
  }
}

function columnRows(file: string, table: string, c: ExportColumn): CodebookRow[] {
  const base = { file, table, name: c.name };
  const rows: CodebookRow[] = [
    {
      ...base,
      kind: 'column',
      source: c.source,
      item: c.item ?? '',
      occurrence: c.occurrence ?? '',
      label: c.label,
      type: c.type.kind,
      ...lengthOf(c.type),
      value_set: c.valueSet?.name ?? '',
    },
  ];
  const vs = c.valueSet;
  if (!vs) return rows;
  for (const v of vs.values)
    rows.push({ ...base, kind: 'value', value_set: vs.name, value: v.value, label: v.label, special: v.special ?? '' });
  for (const r of vs.ranges) rows.push({ ...base, kind: 'range', value_set: vs.name, value: r.from, value_to: r.to, label: r.label });
  return rows;
}

/**
 * The codebook rows of one table, as cells in header order (`undefined` for an empty cell): its
 * table row, then each column and its values. The same rows as codebookLines, for a format that
 * writes the codebook itself (Excel's codebook sheet, where `file` names the sheet).
 */
export function codebookCells(table: ExportTable, file: string): (string | number | undefined)[][] {
  const rows: CodebookRow[] = [{ file, table: table.name, kind: 'table', label: table.label }];
  for (const c of table.columns) rows.push(...columnRows(file, table.name, c));
  return rows.map((r) => CODEBOOK_HEADER.map((h) => (r[h] === '' ? undefined : r[h])));
}

/** The codebook lines of one table (no header): its table row, then each column and its values. */
export function codebookLines(table: ExportTable, file: string): string[] {
  return codebookCells(table, file).map((cells) => csvLine(cells.map(cellText)));
}

/** The column names of the codebook, in order. */
export function codebookColumns(): string[] {
  return [...CODEBOOK_HEADER];
}

/** The header line of the codebook. */
export function codebookHeader(): string {
  return csvLine([...CODEBOOK_HEADER]);
}

function cellText(v: string | number | undefined): string {
  if (v === undefined || v === '') return '';
  return typeof v === 'number' ? String(v) : csvField(v);
}
