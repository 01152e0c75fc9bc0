/**
 * The Parquet export format (docs/export.md#parquet): one file per table, written with
 * hyparquet-writer (docs/decisions.md) one row group of `rowGroupRows` rows at a time, so the
 * writer never holds more than one row group of cells and its encoded bytes.
 */
import { ParquetWriter } from 'hyparquet-writer';
import type { ByteSink, ExportCell, ExportFormat, ExportTable, TableWriter, WriterOptions } from '../../model.js';
import { AppError } from '../../../shared/errors.js';
import { cellEncoder, type CellEncoder, type ParquetValue } from './cells.js';
import { arrowSchemaEntry } from './arrow-schema.js';
import { keyValueMetadata } from './metadata.js';
import { columnEncoding, holdsLabels, tableSchema } from './schema.js';
import { SinkWriter } from './sink-writer.js';

/** Snappy: built into hyparquet-writer, and read by DuckDB, pyarrow, Spark and every other reader. */
const PARQUET_CODEC = 'SNAPPY';

const DONE = Promise.resolve();

class ParquetTableWriter implements TableWriter {
  private readonly encoders: CellEncoder[];
  private readonly names: string[];
  /** Per column: PLAIN for booleans, RLE_DICTIONARY for labels (see below), else the writer's choice. */
  private readonly pageEncodings: ('PLAIN' | 'RLE_DICTIONARY' | undefined)[];
  private readonly writer: ParquetWriter;
  private columns: ParquetValue[][];
  private buffered = 0;
  private written = 0;
  private closed = false;

  constructor(
    private readonly table: ExportTable,
    sink: ByteSink,
    private readonly options: WriterOptions,
    createdBy: string,
  ) {
    if (!Number.isInteger(options.rowGroupRows) || options.rowGroupRows < 1) {
      throw new AppError('USAGE', `Parquet row groups need at least 1 row, got ${options.rowGroupRows}`);
    }
    const encodings = table.columns.map((c) => columnEncoding(c, options.labels));
    this.encoders = table.columns.map((c, i) => cellEncoder(c, encodings[i]!));
    this.names = table.columns.map((c) => c.name);
    // Booleans PLAIN (bit-packed) rather than the RLE the writer would pick: every reader
    // decodes PLAIN booleans, some Spark versions' vectorized reader not RLE ones. Labels always
    // dictionary-encoded, whatever the writer's estimate: few texts, read as categories.
    this.pageEncodings = encodings.map((e) => (e.kind === 'boolean' ? 'PLAIN' : holdsLabels(e) ? 'RLE_DICTIONARY' : undefined));
    this.columns = this.emptyColumns();
    this.writer = new ParquetWriter({
      writer: new SinkWriter(sink),
      schema: tableSchema(table, encodings),
      codec: PARQUET_CODEC,
      kvMetadata: [...keyValueMetadata(table, encodings, options.labels), arrowSchemaEntry(table, encodings)],
      createdBy,
    });
  }

  writeRow(cells: readonly ExportCell[]): Promise<void> {
    if (this.closed) throw new AppError('INTERNAL', `Parquet table ${this.table.name}: a row after close or abort`);
    if (cells.length !== this.encoders.length) {
      throw new AppError(
        'INTERNAL',
        `Parquet table ${this.table.name}: a row of ${cells.length} cells for ${this.encoders.length} columns`,
      );
    }
    const row = this.written + this.buffered + 1;
    // Every cell is checked before any is kept, so a refused row leaves the columns aligned.
    const values = cells.map((cell, i) => this.encoders[i]!(cell, row));
    for (let i = 0; i < values.length; i++) this.columns[i]!.push(values[i]!);
    this.buffered++;
    return this.buffered >= this.options.rowGroupRows ? this.flushGroup() : DONE;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flushGroup();
    await this.writer.finish();
  }

  abort(): Promise<void> {
    // Nothing outside memory: the cells of the row group are dropped, the sink gets no more bytes.
    this.closed = true;
    this.columns = this.emptyColumns();
    this.buffered = 0;
    return DONE;
  }

  private async flushGroup(): Promise<void> {
    if (this.buffered === 0) return;
    const rows = this.buffered;
    const columnData = this.names.map((name, i) => {
      const data = this.columns[i]!;
      let encoding = this.pageEncodings[i];
      // A row group without a label has no dictionary to write: its nulls need no pages of indexes.
      if (encoding === 'RLE_DICTIONARY' && !data.some((v) => v !== null)) encoding = undefined;
      return { name, data, encoding };
    });
    // Released before the encoder's bytes go to the sink, so cells and bytes never pile up.
    this.columns = this.emptyColumns();
    this.buffered = 0;
    this.written += rows;
    await this.writer.write({ columnData, rowGroupSize: rows });
  }

  private emptyColumns(): ParquetValue[][] {
    return this.names.map(() => []);
  }
}

export const parquetFormat: ExportFormat = {
  name: 'parquet',
  extension: '.parquet',
  mediaType: 'application/vnd.apache.parquet',
  needsStats: false,
  labelColumns: true,
  open(table, sink, options) {
    return new ParquetTableWriter(table, sink, options, 'sds');
  },
};
