/**
 * The SPSS `.sav` export format (docs/export.md#spss): a system file written from the published
 * format description, UTF-8, bytecode-compressed. It needs the first pass's stats: string widths
 * and the case count go in the dictionary, before the first case.
 */
import { AppError } from '../../../shared/errors.js';
import type { ByteSink, ExportCell, ExportFormat, ExportTable, TableStats, TableWriter } from '../../model.js';
import { CaseEncoder } from './case-encoder.js';
import { BytecodeCompressor } from './compressor.js';
import { encodeDictionary } from './dictionary.js';
import { planVariables } from './variables.js';

/** Compressed bytes gathered before they go to the sink. */
const FLUSH_BYTES = 1 << 16;

export const spssFormat: ExportFormat = {
  name: 'spss',
  extension: '.sav',
  mediaType: 'application/x-spss-sav',
  needsStats: true,
  open(table, sink, _options, stats) {
    if (!stats) throw new AppError('USAGE', `The spss export of table ${table.name} needs the first pass's stats`);
    return openSpss(table, sink, stats, new Date());
  },
};

/** A writer of one table as an SPSS system file; `now` is the creation time in the header. */
function openSpss(table: ExportTable, sink: ByteSink, stats: TableStats, now: Date): TableWriter {
  const variables = planVariables(table, stats);
  const compressor = new BytecodeCompressor(FLUSH_BYTES * 2);
  const encoder = new CaseEncoder(variables, compressor);
  let started = false;
  let done = false;
  let rows = 0;

  async function start(): Promise<void> {
    if (started) return;
    started = true;
    await sink.write(encodeDictionary({ variables, label: table.label, table: table.name, cases: stats.rows, now }));
  }

  return {
    async writeRow(cells: readonly ExportCell[]) {
      if (done) throw new AppError('INTERNAL', `Table ${table.name}: a row after close or abort`);
      await start();
      if (rows >= stats.rows) throw mismatch(table, `more than the ${stats.rows} rows the first pass counted`);
      encoder.encode(cells, rows);
      rows++;
      if (compressor.pending >= FLUSH_BYTES) await sink.write(compressor.take());
    },
    async close() {
      if (done) return;
      done = true;
      await start();
      if (rows !== stats.rows) throw mismatch(table, `${rows} rows where the first pass counted ${stats.rows}`);
      compressor.finish();
      if (compressor.pending > 0) await sink.write(compressor.take());
    },
    abort() {
      // Nothing outside memory: the compressed bytes not yet sent are dropped.
      done = true;
      compressor.take();
      return Promise.resolve();
    },
  };
}

function mismatch(table: ExportTable, what: string): AppError {
  return new AppError('EXPORT_SPSS_STATS', `Table ${table.name}: ${what}`, { table: table.name });
}
