/**
 * The CSV export format (docs/export.md#csv): one RFC 4180 file per table, UTF-8, a header row of
 * the export names, then one record per row. Streams: rows are encoded into a buffer handed to
 * the sink every CHUNK_BYTES, so memory does not grow with the table.
 */
import { AppError } from '../../../shared/errors.js';
import type { ByteSink, ExportCell, ExportFormat, ExportTable, TableWriter, WriterOptions } from '../../model.js';
import { csvField, csvLine, labelledCell, csvCell, UTF8_BOM, valueLabelMaps } from './csv-text.js';

/** Text gathered before it is written (characters; bytes are at most 3× that). */
const CHUNK_CHARS = 64 * 1024;

class CsvWriter implements TableWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private done = false;
  private readonly labels: ReturnType<typeof valueLabelMaps> | undefined;

  constructor(
    private readonly table: ExportTable,
    private readonly sink: ByteSink,
    options: WriterOptions,
  ) {
    this.labels = options.labels === 'labels' ? valueLabelMaps(table.columns) : undefined;
    const header = csvLine(table.columns.map((c) => csvField(c.name)));
    this.push(options.bom === true ? UTF8_BOM + header : header);
  }

  async writeRow(cells: readonly ExportCell[]): Promise<void> {
    if (this.done) throw new AppError('INTERNAL', `CSV table ${this.table.name}: a row after close or abort`);
    const fields = new Array<string>(cells.length);
    const labels = this.labels;
    for (let i = 0; i < cells.length; i++) fields[i] = labels === undefined ? csvCell(cells[i]!) : labelledCell(cells[i]!, labels[i]);
    this.push(csvLine(fields));
    if (this.pendingChars >= CHUNK_CHARS) await this.flush();
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.flush();
  }

  abort(): Promise<void> {
    this.done = true;
    this.pending = [];
    this.pendingChars = 0;
    return Promise.resolve();
  }

  private push(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    await this.sink.write(chunk);
  }
}

export const csvFormat: ExportFormat = {
  name: 'csv',
  extension: '.csv',
  mediaType: 'text/csv; charset=utf-8',
  needsStats: false,
  labelColumns: true,
  open(table, sink, options) {
    return new CsvWriter(table, sink, options);
  },
};
