/**
 * The export model (docs/export.md): what a dictionary's cases become in a file for analysts.
 * One `ExportTable` per breakout table (the cases table, one per record type, level tables and
 * notes), with columns that carry the item's label and value set so that each format can write
 * variable and value labels. Pure types, shared by the planner (export-plan.ts) and every format
 * writer under formats/.
 */
import type { ColumnType } from '../breakout/plan-model.js';
import type { SpecialName } from '../cspro/dictionary/model.js';

/** One labelled value of a value set: a single code (ranges are in `ranges`). */
export interface ExportValueLabel {
  /** The code: a number for numeric items, the right-trimmed text for alpha items. */
  value: number | string;
  label: string;
  /** Set when the dictionary maps a CSPro special value (MISSING, REFUSED, …) to this code. */
  special?: SpecialName;
}

/** A labelled range `from:to` of a numeric value set (inclusive). */
export interface ExportValueRange {
  from: number;
  to: number;
  label: string;
}

/** The value set of an item (its first one, the one breakout maps specials with). */
export interface ExportValueSet {
  /** The dictionary's value set name, e.g. `SEX_VS1`. */
  name: string;
  label: string;
  /** True for the value set of a numeric item (codes are numbers). */
  numeric: boolean;
  values: ExportValueLabel[];
  ranges: ExportValueRange[];
}

/** One column of an exported table, in file order. */
export interface ExportColumn {
  /**
   * The name in the file: valid for every format (`^[a-z_][a-z0-9_]*$`, at most 32 characters),
   * unique in its table ignoring case. Writers use it as it is.
   */
  name: string;
  /** The breakout column it holds (docs/breakout.md), before shortening. */
  source: string;
  /** The dictionary item, absent for bookkeeping columns (case_id, occ, revision, …). */
  item?: string;
  /** 1-based occurrence of a repeating item, absent when the item does not repeat. */
  occurrence?: number;
  /** Variable label: the item label (with the occurrence label when it has one), or a description. */
  label: string;
  /** The same type the breakout gives the column (integer digits, decimal scale, varchar length). */
  type: ColumnType;
  /** The item's value set, when it has one. */
  valueSet?: ExportValueSet;
  /**
   * Set on a label column of `--labels both` (docs/export.md#codes-and-labels-side-by-side): the
   * export name of the code column right before it, whose value labels this column holds.
   */
  labelsOf?: string;
}

/** One file of an export. */
export interface ExportTable {
  /** File base name without extension, e.g. `popstan_person`: the breakout table name. */
  name: string;
  /** Record or table label, e.g. `Person record`. */
  label: string;
  columns: ExportColumn[];
}

/**
 * A cell, exactly as the breakout writes it to SQLite (flatten.ts): integer and decimal items are
 * numbers (a decimal or integer beyond 2^53 may be a string), alpha items strings, booleans for
 * `verified`, timestamps ISO 8601 strings, NULL for blank and unmapped special values. A code
 * that the column's value set marks as special (e.g. 9 = MISSING) is still that code here: each
 * format decides how to mark it (Stata extended missing, SPSS user-missing, …).
 */
export type ExportCell = string | number | boolean | null;

/**
 * Per-table facts gathered by a first pass over the data, for formats whose header must know
 * them before the first row (Stata `N` and `str#` widths, SPSS string widths).
 */
export interface TableStats {
  rows: number;
  /** Per column (same index as `columns`): UTF-8 bytes of the longest string value, 0 if none. */
  maxBytes: number[];
  /**
   * Per column: the largest magnitude of a number value (Infinity for one that is not a safe
   * integer), 0 if none. Lets a wide integer column (`revision`) take an integer storage type
   * when every value fits (docs/export.md#integer-columns). Absent: types by declared digits only.
   */
  maxAbs?: number[];
}

/** Where a writer sends its bytes; `write` resolves when the chunk may be followed (backpressure). */
export interface ByteSink {
  write(chunk: Uint8Array): Promise<void>;
}

/** Writes one table's rows to its sink; made by an `ExportFormat` for each table. */
export interface TableWriter {
  writeRow(cells: readonly ExportCell[]): Promise<void>;
  /** Writes what is left (footers, value labels, the last row group); no row may follow. */
  close(): Promise<void>;
  /**
   * Gives the table up after a failure (its own, another table's, the pass's or the output's):
   * closes and removes what the writer holds (a Stata table's temporary files) and drops its
   * buffers, writing nothing more; the caller removes the output. No row may follow. Safe at any
   * point (before the first row, after `close`, after a failed `close`) and more than once.
   */
  abort(): Promise<void>;
}

/**
 * What coded columns hold in CSV and Parquet (docs/export.md): `codes`, their value `labels`, or
 * `both` (a label column after each coded column, which the export plan adds).
 */
export type LabelsMode = 'codes' | 'labels' | 'both';

export interface WriterOptions {
  /**
   * `labels` writes value labels instead of codes where the format has no value labels (CSV,
   * Parquet); with `both` the table already has its label columns (`labelsOf`).
   */
  labels: LabelsMode;
  /** Rows per Parquet row group (a page of the export): bounds the writer's memory. */
  rowGroupRows: number;
  /** CSV only: start each file with a UTF-8 byte order mark (for Excel). Absent: no BOM. */
  bom?: boolean;
  /** Excel only: most rows of a sheet, its header row included (limits.export_xlsx_rows). Absent: Excel's 1,048,576. */
  sheetRows?: number;
}

/** One export format: how each table becomes a file. */
export interface ExportFormat {
  name: 'csv' | 'stata' | 'spss' | 'parquet';
  /** Absent: one file per table. A format that puts every table in one file is a `WorkbookFormat`. */
  layout?: 'files';
  /** File extension with its dot, e.g. `.dta`. */
  extension: string;
  /** The HTTP Content-Type of one file. */
  mediaType: string;
  /** True when `open` needs `TableStats` (a first pass over the data). */
  needsStats: boolean;
  /**
   * True when `--labels both` gives this format's tables a label column after each coded column
   * (formats without value labels of their own: CSV, Parquet). Absent: `both` is `codes`.
   */
  labelColumns?: boolean;
  open(table: ExportTable, sink: ByteSink, options: WriterOptions, stats?: TableStats): TableWriter;
}

/**
 * Writes the one file of a `WorkbookFormat`: a `TableWriter` per table (same order as the tables
 * it was opened with), fed by the same pass as a per-table format, then `close` writes the file.
 */
export interface WorkbookWriter {
  tables: TableWriter[];
  /** The name of each table inside the file (Excel: its sheet), same order. */
  names: readonly string[];
  /**
   * Writes the whole file (every table, then the codebook) to the sink; no row may follow. A
   * `signal` stops it between batches of rows with its reason (the caller then aborts).
   */
  close(signal?: AbortSignal): Promise<void>;
  /** As TableWriter.abort, for every table and the file: drops what is held, writes nothing more. */
  abort(): Promise<void>;
}

/**
 * A format whose export is one file holding every table (Excel: a sheet per table and the
 * codebook; docs/export.md#excel), named after the dictionary's label, instead of a file per table.
 */
export interface WorkbookFormat {
  name: 'xlsx';
  layout: 'workbook';
  /** File extension with its dot, e.g. `.xlsx`. */
  extension: string;
  /** The HTTP Content-Type of the file. */
  mediaType: string;
  needsStats: false;
  /** As ExportFormat.labelColumns: Excel has no value labels, so `both` adds label columns. */
  labelColumns?: boolean;
  open(tables: readonly ExportTable[], sink: ByteSink, options: WriterOptions): WorkbookWriter;
}

/** Any export format: a file per table, or one workbook. */
export type AnyExportFormat = ExportFormat | WorkbookFormat;
