/**
 * The Excel export format (docs/export.md#excel): one workbook (`<label>.xlsx`) with a sheet per
 * table, its header row the export names, and a `codebook` sheet with the rows of codebook.csv.
 * The export pass feeds every table at once; each table's rows wait in a temporary file
 * (spooled-rows.ts) and `close` writes the sheets one after another with exceljs's streaming
 * writer (workbook-stream.ts), so memory does not grow with the rows. A table past the rows a sheet
 * holds stops the export (EXPORT_XLSX_TOO_MANY_ROWS) before the workbook is written.
 */
import { AppError } from '../../../shared/errors.js';
import { codebookCells, codebookColumns } from '../../codebook.js';
import type { ByteSink, ExportCell, ExportTable, TableWriter, WorkbookFormat, WorkbookWriter, WriterOptions } from '../../model.js';
import { rowCells } from './cells.js';
import { sheetNames } from './sheet-names.js';
import { SpooledRows } from './spooled-rows.js';
import { openWorkbookStream, type WorkbookStream } from './workbook-stream.js';

/** Rows of an Excel sheet, its header row included (Excel's specifications and limits). */
const EXCEL_MAX_ROWS = 1_048_576;

/** The name of the codebook's sheet, taken before the tables' names. */
const CODEBOOK_SHEET = 'codebook';

/** One table's rows, counted against the rows a sheet holds, spooled until its sheet is written. */
class SheetTable implements TableWriter {
  rows = 0;
  readonly spooled = new SpooledRows();
  private done = false;

  constructor(
    private readonly table: ExportTable,
    private readonly maxRows: number,
  ) {}

  async writeRow(cells: readonly ExportCell[]): Promise<void> {
    if (this.done) throw new AppError('INTERNAL', `Excel table ${this.table.name}: a row after close or abort`);
    // The header row is one of the sheet's rows.
    if (this.rows + 2 > this.maxRows) {
      throw new AppError(
        'EXPORT_XLSX_TOO_MANY_ROWS',
        `table ${this.table.name} has more than ${this.maxRows - 1} rows, more than an Excel sheet holds ` +
          `(${this.maxRows} rows with its header); export it as CSV, Parquet, Stata or SPSS, which hold it`,
        { table: this.table.name, limit: this.maxRows, formats: 'csv, parquet, stata, spss' },
      );
    }
    this.rows += 1;
    await this.spooled.add(cells);
  }

  /** The rows stay spooled until the workbook writes its sheet. */
  close(): Promise<void> {
    this.done = true;
    return Promise.resolve();
  }

  async abort(): Promise<void> {
    this.done = true;
    await this.spooled.dispose();
  }
}

class XlsxWorkbook implements WorkbookWriter {
  readonly tables: SheetTable[];
  readonly names: string[];
  private stream: WorkbookStream | undefined;
  private done = false;

  constructor(
    private readonly exportTables: readonly ExportTable[],
    private readonly sink: ByteSink,
    private readonly options: WriterOptions,
  ) {
    const maxRows = options.sheetRows ?? EXCEL_MAX_ROWS;
    this.tables = exportTables.map((t) => new SheetTable(t, maxRows));
    this.names = sheetNames(
      exportTables.map((t) => t.name),
      [CODEBOOK_SHEET],
    );
  }

  async close(signal?: AbortSignal): Promise<void> {
    if (this.done) throw new AppError('INTERNAL', 'Excel workbook: closed twice, or after abort');
    this.done = true;
    const book = (this.stream = openWorkbookStream(this.sink));
    for (let t = 0; t < this.exportTables.length; t++) {
      const table = this.exportTables[t]!;
      const sheet = book.addSheet(
        this.names[t]!,
        table.columns.map((c) => c.name),
      );
      const cells = rowCells(table.columns, this.options);
      await this.tables[t]!.spooled.replay(async (rows) => {
        signal?.throwIfAborted();
        for (const row of rows) sheet.addRow(cells(row));
        await sheet.drained();
      });
      await this.tables[t]!.spooled.dispose();
      sheet.commit();
    }
    const codebook = book.addSheet(CODEBOOK_SHEET, codebookColumns());
    for (let t = 0; t < this.exportTables.length; t++) {
      for (const row of codebookCells(this.exportTables[t]!, this.names[t]!)) codebook.addRow(row.map((v) => v ?? null));
      await codebook.drained();
    }
    codebook.commit();
    await book.finish();
  }

  async abort(): Promise<void> {
    this.done = true;
    for (const t of this.tables) await t.abort();
    this.stream?.abort();
  }
}

export const xlsxFormat: WorkbookFormat = {
  name: 'xlsx',
  layout: 'workbook',
  extension: '.xlsx',
  mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  needsStats: false,
  labelColumns: true,
  open(tables, sink, options) {
    return new XlsxWorkbook(tables, sink, options);
  },
};
