/**
 * Compares an export read back by tools others wrote (Python's csv module, pandas, GNU PSPP,
 * DuckDB) with the SQLite breakout of the same cases and the export's codebook, value by value
 * (docs/export.md#formats): how each format carries blanks, booleans, times, decimals, special
 * codes and, with `--labels labels`, the value labels in place of the codes.
 */
import assert from 'node:assert/strict';
import type { CodebookRow, ExpectedTable } from './export-readback.js';
import { readCsvFiles } from './export-readback.js';
import { readParquet } from './read-parquet.js';
import { readSpss } from './read-spss.js';
import { readStata } from './read-stata.js';

export type Format = 'csv' | 'stata' | 'spss' | 'parquet' | 'xlsx';
export const EXT: Record<Format, string> = { csv: 'csv', stata: 'dta', spss: 'sav', parquet: 'parquet', xlsx: 'xlsx' };
/** Stata's fixed letters for CSPro's special values (docs/export.md#stata). */
const STATA_LETTER: Record<string, string> = { MISSING: '.a', REFUSED: '.b', DEFAULT: '.c', NOTAPPL: '.d' };

/** A file read back by its format's reader, in one shape: column names, labels, value labels, rows. */
export interface ReadBack {
  /** `label` is undefined for CSV, which has no variable labels. */
  columns: { name: string; label?: string; valueLabels: [string, string][] }[];
  rows: unknown[][];
  /** Stata's data set label; undefined for the other formats. */
  dataLabel?: string;
  /** SPSS: the values PSPP lists as user-missing, per column. */
  userMissing?: Map<string, Set<string>>;
}

export async function readBack(format: Format, file: string): Promise<ReadBack> {
  // A workbook holds every table: readXlsx (read-xlsx.ts) reads its sheets, xlsxReadBack each one.
  if (format === 'xlsx') throw new Error(`${file}: read a workbook with readXlsx`);
  if (format === 'csv') {
    const [header, ...rows] = readCsvFiles([file])[file]!;
    return { columns: header!.map((name) => ({ name, valueLabels: [] })), rows };
  }
  if (format === 'stata') {
    const f = readStata(file);
    return {
      dataLabel: f.dataLabel,
      columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: c.valueLabels.map(([v, l]) => [String(v), l]) })),
      rows: f.rows,
    };
  }
  if (format === 'spss') {
    const f = readSpss(file);
    const userMissing = new Map(
      f.columns.map((c) => [c.name, new Set(c.valueLabels.filter((v) => v.missing).map((v) => String(v.value)))]),
    );
    return {
      columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: c.valueLabels.map((v) => [String(v.value), v.label]) })),
      rows: f.rows,
      userMissing,
    };
  }
  const f = await readParquet(file);
  return { columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: [...c.valueLabels] })), rows: f.rows };
}

/** One sheet of a workbook read by readXlsx, as a ReadBack (Excel has no variable or value labels). */
export function xlsxReadBack(sheet: { columns: string[]; rows: unknown[][] }): ReadBack {
  return { columns: sheet.columns.map((name) => ({ name, valueLabels: [] })), rows: sheet.rows };
}

/**
 * The codebook's rows of one column: its `column` row, its codes and ranges as the codebook lists
 * them (blank labels too), and `named`, those whose label is not blank: the only ones a format
 * may show in place of a code (docs/export.md#value-sets).
 */
function codebookColumn(codebook: CodebookRow[], table: string, name: string) {
  const i = codebook.findIndex((r) => r.kind === 'column' && r.table === table && r.name === name);
  assert.ok(i >= 0, `${table}.${name} is in the codebook`);
  const below: CodebookRow[] = [];
  for (let j = i + 1; j < codebook.length && (codebook[j]!.kind === 'value' || codebook[j]!.kind === 'range'); j++)
    below.push(codebook[j]!);
  const values = below.filter((r) => r.kind === 'value');
  const ranges = below.filter((r) => r.kind === 'range');
  const named = (r: CodebookRow) => r.label!.trim() !== '';
  return { column: codebook[i]!, values, ranges, named: { values: values.filter(named), ranges: ranges.filter(named) } };
}

type CodebookColumn = ReturnType<typeof codebookColumn>;

const isTextType = (type: string) => type === 'text' || type === 'varchar' || type === 'guid';

/** A decimal as text without trailing zeros (`0.50`, `0.5` and SQLite's 0.5 agree), exactly. */
function decimalText(text: string): string {
  return text.includes('.') && !/e/i.test(text) ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * With `--labels labels`, what CSV and Parquet write for a code of a column with a value set
 * (docs/export.md#csv, docs/export.md#parquet): the label of the code, for Parquet else the label of
 * the range that holds it, else the code as text (Parquet writes a decimal code at its scale). A
 * blank label names nothing and is passed over.
 */
function labelledText(format: 'csv' | 'parquet' | 'xlsx', cb: CodebookColumn, v: unknown): string {
  const type = cb.column.type!;
  const numeric = type === 'integer' || type === 'decimal';
  const code = numeric ? Number(v) : String(v).trimEnd();
  const single = cb.named.values.find((c) => (numeric ? Number(c.value) === code : c.value === code));
  if (single) return single.label!;
  if (format === 'csv' || format === 'xlsx') return String(v);
  if (numeric) {
    const range = cb.named.ranges.find((r) => (code as number) >= Number(r.value) && (code as number) <= Number(r.value_to));
    if (range) return range.label!;
    return type === 'decimal' ? (code as number).toFixed(Number(cb.column.decimals)) : String(code);
  }
  return code as string;
}

/** How a column's cells are compared: by type, or as label text when `--labels labels` replaced its codes. */
interface ColumnMeta {
  name: string;
  cb: CodebookColumn;
  type: string;
  specials: Map<string, string>;
  /** `--labels labels` replaced the codes by labels (CSV and Parquet, a column with a value set). */
  labelled: boolean;
}

/**
 * The cell the format must hold for a breakout value, as comparable text (null for a blank): how
 * each format carries blanks, booleans, times, decimals and special codes (docs/export.md#formats).
 */
function expectedCell(format: Format, m: ColumnMeta, v: unknown): string | null {
  const { type, specials } = m;
  const isText = isTextType(type);
  if (v === null || v === undefined) return isText && (format === 'stata' || format === 'spss') ? '' : null;
  if (m.labelled) return labelledText(format as 'csv' | 'parquet' | 'xlsx', m.cb, v);
  const text = String(v);
  if (format === 'stata' && specials.has(text)) return STATA_LETTER[specials.get(text)!]!;
  // SPSS pads strings with spaces, so trailing spaces are not kept; PSPP's CSV ends lines in LF.
  if (format === 'spss' && isText) return text.replace(/\r\n/g, '\n').replace(/ +$/, '');
  if (type === 'decimal') return decimalText(text);
  return text;
}

/** A read cell as comparable text: Stata's missing letters (`.` is the blank), naive Stata times as UTC, Parquet booleans as 0/1. */
export function gotCell(format: Format, type: string, v: unknown, labelled = false): string | null {
  if (v === null || v === undefined) return null;
  // Python's csv module reads NULL (an empty field) and an empty text (`""`) alike.
  if ((format === 'csv' || format === 'xlsx') && v === '') return null;
  // pandas gives system missing `.` as a missing value too: it is Stata's blank.
  if (typeof v === 'object' && 'missing' in v)
    return (v as { missing: string }).missing === '.' ? null : (v as { missing: string }).missing;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (labelled) return String(v);
  if (format === 'stata' && type === 'timestamp') return new Date(`${String(v)}Z`).toISOString();
  if (format === 'spss' && typeof v === 'string') return v.replace(/\r\n/g, '\n');
  if (type === 'decimal') return decimalText(String(v));
  return String(v);
}

export interface CompareOptions {
  /** The export's `--labels` (default `codes`): Stata and SPSS ignore it (docs/export.md#formats). */
  labels?: 'codes' | 'labels';
}

/** Compares a file read back with the breakout's rows and the codebook: columns, every value, labels. */
export function assertSameTable(
  format: Format,
  file: string,
  got: ReadBack,
  expected: ExpectedTable,
  codebook: CodebookRow[],
  table: string,
  opts: CompareOptions = {},
): void {
  assert.deepEqual(
    got.columns.map((c) => c.name),
    expected.columns.map((n) => (format === 'spss' && n.startsWith('_') ? `v${n}` : n)),
    `${file}: variables`,
  );
  const labelsMode = opts.labels === 'labels' && (format === 'csv' || format === 'parquet' || format === 'xlsx');
  const meta = expected.columns.map((name): ColumnMeta => {
    const cb = codebookColumn(codebook, table, name);
    const specials = new Map(cb.values.filter((v) => v.special).map((v) => [v.value!, v.special!]));
    // A column whose labels are all blank keeps its codes and its type.
    const labelled =
      labelsMode && (format === 'parquet' ? cb.named.values.length + cb.named.ranges.length > 0 : cb.named.values.length > 0);
    return { name, cb, type: cb.column.type!, specials, labelled };
  });
  const keys = meta.filter((m) => m.name === 'case_id' || m.name === 'occ' || m.name === 'note_number' || /^level_\d+_occ$/.test(m.name));
  const keyOf = (cells: (string | null)[]) => keys.map((k) => cells[meta.indexOf(k)]).join('|');
  const want = new Map<string, (string | null)[]>();
  for (const row of expected.rows) {
    const cells = meta.map((m) => expectedCell(format, m, row[m.name]));
    want.set(keyOf(cells), cells);
  }
  assert.equal(got.rows.length, want.size, `${file}: row count`);
  for (let r = 0; r < got.rows.length; r++) {
    const cells = got.rows[r]!.map((v, i) => gotCell(format, meta[i]!.type, v, meta[i]!.labelled));
    const exp = want.get(keyOf(cells));
    assert.ok(exp, `${file} row ${r + 1}: key ${keyOf(cells)} is a breakout row`);
    for (let i = 0; i < meta.length; i++) {
      // breakout_time is the time of each run: the breakout's and the export's differ by design.
      if (meta[i]!.name === 'breakout_time') continue;
      assert.equal(cells[i], exp[i], `${file} row ${r + 1} column ${meta[i]!.name}`);
    }
  }

  // Neither CSV nor Excel has variable or value labels: the codebook holds them.
  if (format === 'csv' || format === 'xlsx') return;
  for (let i = 0; i < meta.length; i++) {
    const { name, cb, type, specials } = meta[i]!;
    const col = got.columns[i]!;
    const label = cb.column.label!;
    const cut: string = format === 'stata' ? [...label].slice(0, 80).join('') : label;
    assert.equal(col.label, format === 'spss' ? cut.replace(/\r\n/g, '\n') : cut, `${file} ${name}: variable label`);
    assert.deepEqual(
      sortPairs(col.valueLabels),
      sortPairs(expectedValueLabels(format, type, cb, specials)),
      `${file} ${name}: value labels`,
    );
    if (format === 'spss' && specials.size > 0 && (type === 'integer' || type === 'decimal')) {
      assert.deepEqual(
        [...got.userMissing!.get(col.name)!].map(Number).sort(),
        [...specials.keys()].map(Number).sort(),
        `${file} ${name}: user-missing values`,
      );
    }
  }
}

const sortPairs = (pairs: [string, string][]) => [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** The value labels each format writes for a column, from the codebook (docs/export.md#formats). */
function expectedValueLabels(format: Format, type: string, cb: CodebookColumn, specials: Map<string, string>): [string, string][] {
  const numeric = type === 'integer' || type === 'decimal';
  if (format === 'csv' || format === 'xlsx') return [];
  if (format === 'parquet') {
    return [
      ...cb.values.map((v): [string, string] => [v.value!, v.label!]),
      ...cb.ranges.map((r): [string, string] => [`${r.value}:${r.value_to}`, r.label!]),
    ];
  }
  if (format === 'spss') {
    if (type === 'boolean')
      return [
        ['0', 'No'],
        ['1', 'Yes'],
      ];
    return cb.named.values.map((v) => [numeric ? String(Number(v.value)) : v.value!, v.label!]);
  }
  // Stata labels whole numbers of numeric columns only, special codes under their letter, and
  // ranges of one value as that value; neither SPSS nor Stata gets a blank label.
  if (!numeric) return [];
  const out: [string, string][] = [];
  for (const v of cb.named.values) {
    const special = specials.get(v.value!);
    if (special !== undefined) out.push([STATA_LETTER[special]!, v.label!]);
    else if (Number.isInteger(Number(v.value))) out.push([String(Number(v.value)), v.label!]);
  }
  for (const r of cb.named.ranges)
    if (r.value === r.value_to && Number.isInteger(Number(r.value))) out.push([String(Number(r.value)), r.label!]);
  return out;
}

/**
 * Rows in case-key order, then level occurrences and `occ` (docs/export.md#row-order): `cases` is
 * the cases file read back (its `case_key` gives each `case_id` its key), `table` any other file.
 */
export function assertCaseKeyOrder(format: Format, file: string, cases: ReadBack, table: ReadBack): void {
  const at = (rb: ReadBack, name: string) => rb.columns.findIndex((c) => c.name === name);
  const keyOf = new Map(cases.rows.map((r) => [String(r[at(cases, 'case_id')]), String(r[at(cases, 'case_key')])]));
  const occs = table.columns
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => /^level_\d+_occ$/.test(c.name) || c.name === 'occ' || c.name === 'note_number');
  const id = at(table, 'case_id');
  const sortKey = (r: unknown[]) => ({
    key: keyOf.get(String(r[id]))!,
    guid: String(r[id]),
    occs: occs.map(({ i }) => Number(gotCell(format, 'integer', r[i]))),
  });
  const before = (a: ReturnType<typeof sortKey>, b: ReturnType<typeof sortKey>): boolean => {
    if (a.key !== b.key) return a.key < b.key;
    if (a.guid !== b.guid) return a.guid < b.guid;
    for (let k = 0; k < a.occs.length; k++) if (a.occs[k] !== b.occs[k]) return a.occs[k]! < b.occs[k]!;
    return false;
  };
  for (let r = 1; r < table.rows.length; r++) {
    const a = sortKey(table.rows[r - 1]!);
    const b = sortKey(table.rows[r]!);
    assert.ok(a.key !== undefined && b.key !== undefined, `${file} row ${r + 1}: its case is in the cases file`);
    assert.ok(before(a, b), `${file} rows ${r} and ${r + 1} in case-key then occurrence order: ${JSON.stringify([a, b])}`);
  }
}
