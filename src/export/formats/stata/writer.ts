/**
 * The Stata table writer (docs/export.md#stata): pushes a .dta file (format 118, or 119 above
 * 32,767 variables) to a byte sink row by row. Observations are encoded into a 64 KiB buffer
 * and sent when it fills, so memory stays flat whatever the row count. A table with strL
 * variables keeps its rows and strLs in temporary files until the last row (the header must give
 * the size of `<strls>`), then sends header, data, strLs and value labels in order.
 */
import { AppError } from '../../../shared/errors.js';
import type { ByteSink, ExportCell, ExportTable, TableStats, TableWriter } from '../../model.js';
import { encodeRowInto, rowBytes } from './data-row.js';
import { encodeHead, encodeTail, releaseFor, type Release } from './header.js';
import { Spool } from '../spool.js';
import { encodeValueLabels, planValueLabels } from './value-labels.js';
import { planVariables, type StataVariable } from './variables.js';

/** Observations are gathered up to this many bytes before one write. */
const CHUNK_BYTES = 64 * 1024;

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

class StataTableWriter implements TableWriter {
  private readonly variables: StataVariable[];
  private readonly release: Release;
  private readonly valueLabelNames: string[];
  private readonly valueLabels: Buffer;
  private readonly rowSize: number;
  private readonly hasStrl: boolean;
  private chunk: Buffer;
  private used = 0;
  private rows = 0;
  private started = false;
  private closed = false;
  private spools: { data: Spool; strls: Spool } | undefined;

  constructor(
    private readonly table: ExportTable,
    private readonly sink: ByteSink,
    private readonly stats: TableStats,
  ) {
    this.variables = planVariables(table.columns, stats);
    this.release = releaseFor(this.variables.length);
    const labels = planValueLabels(this.variables);
    this.valueLabelNames = labels.names;
    this.valueLabels = encodeValueLabels(labels.tables);
    this.rowSize = rowBytes(this.variables);
    this.hasStrl = this.variables.some((v) => v.storage === 'strl');
    this.chunk = Buffer.alloc(Math.max(CHUNK_BYTES, this.rowSize));
  }

  private head(strlsBytes: number): Buffer {
    return encodeHead({
      release: this.release,
      rows: this.stats.rows,
      label: this.table.label,
      variables: this.variables,
      valueLabelNames: this.valueLabelNames,
      dataBytes: this.stats.rows * this.rowSize,
      strlsBytes,
      valueLabelsBytes: this.valueLabels.length,
    });
  }

  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (!this.hasStrl) {
      await this.sink.write(this.head(0));
      return;
    }
    const data = await Spool.open('data', 'sds-stata-');
    let strls: Spool;
    try {
      strls = await Spool.open('strls', 'sds-stata-');
    } catch (err) {
      await data.dispose();
      throw err;
    }
    this.spools = { data, strls };
  }

  /** Closes and removes the temporary files, once: after close, or on abort. */
  private async disposeSpools(): Promise<void> {
    const spools = this.spools;
    this.spools = undefined;
    await spools?.data.dispose();
    await spools?.strls.dispose();
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const out = this.chunk.subarray(0, this.used);
    if (this.spools) await this.spools.data.append(Buffer.from(out));
    else await this.sink.write(Buffer.from(out));
    this.chunk.fill(0, 0, this.used);
    this.used = 0;
  }

  private mismatch(message: string): AppError {
    return new AppError('STATA_STATS_MISMATCH', `Table ${this.table.name}: ${message}`, { table: this.table.name });
  }

  async writeRow(cells: readonly ExportCell[]): Promise<void> {
    if (this.closed) throw new AppError('INTERNAL', `Table ${this.table.name}: a row was written after close or abort`);
    if (cells.length !== this.variables.length) {
      throw new AppError('INTERNAL', `Table ${this.table.name}: a row of ${cells.length} cells for ${this.variables.length} columns`);
    }
    if (this.rows >= this.stats.rows) {
      throw this.mismatch(`more rows than the ${this.stats.rows} counted by the first pass`);
    }
    await this.start();
    if (this.used + this.rowSize > this.chunk.length) await this.flush();
    this.rows++;
    const gsos = encodeRowInto(this.chunk, this.used, this.variables, cells, this.release, {
      table: this.table.name,
      row: this.rows,
    });
    this.used += this.rowSize;
    for (const gso of gsos) await this.spools?.strls.append(gso);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.rows !== this.stats.rows) {
        throw this.mismatch(`${this.rows} rows written, the first pass counted ${this.stats.rows}`);
      }
      await this.start();
      await this.flush();
      if (!this.spools) {
        await this.sink.write(encodeTail(this.valueLabels));
        return;
      }
      const { data, strls } = this.spools;
      await this.sink.write(this.head(strls.size));
      await data.copyTo(this.sink);
      await this.sink.write(ascii('</data><strls>'));
      await strls.copyTo(this.sink);
      await this.sink.write(Buffer.concat([ascii('</strls><value_labels>'), this.valueLabels, ascii('</value_labels></stata_dta>')]));
    } finally {
      await this.disposeSpools();
    }
  }

  async abort(): Promise<void> {
    this.closed = true;
    this.used = 0;
    this.chunk = Buffer.alloc(0);
    await this.disposeSpools();
  }
}

/** Opens the writer of one table; `stats` (row count, string widths) must come from a first pass. */
export function openStataWriter(table: ExportTable, sink: ByteSink, stats: TableStats | undefined): TableWriter {
  if (!stats) throw new AppError('INTERNAL', `Table ${table.name}: the Stata writer needs the first pass (stats)`);
  return new StataTableWriter(table, sink, stats);
}
