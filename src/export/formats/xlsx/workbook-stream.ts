/**
 * An xlsx file written as it goes with exceljs's streaming writer (`stream.xlsx.WorkbookWriter`,
 * docs/export.md#excel): each row is committed as it is added, so exceljs turns it into XML at
 * once and keeps no row; sheets follow one another in the zip. exceljs hands a sheet's XML on to
 * its zip (archiver) without waiting, so `drained` waits, after each batch of rows, until the
 * zip has taken it and the sink has the compressed bytes: memory holds one batch, whatever the
 * number of rows. Inline strings, not a shared-strings table (which would grow with the text).
 */
import { once } from 'node:events';
import { Writable } from 'node:stream';
import type { stream as ExcelStream } from 'exceljs';
import { AppError } from '../../../shared/errors.js';
import { lazyRequire } from '../../../shared/lazy-require.js';
import type { ByteSink } from '../../model.js';
import { TIME_FORMAT, type SheetCell } from './cells.js';

/** exceljs, loaded when a workbook is first written (docs/cli.md#start-up-time). */
const loadExcel = lazyRequire<typeof import('exceljs')>('exceljs');

type ExcelWorkbook = ExcelStream.xlsx.WorkbookWriter;
type ExcelSheet = ReturnType<ExcelWorkbook['addWorksheet']>;

/** One sheet being written: rows in order, then `commit`. */
export interface SheetStream {
  addRow(cells: readonly SheetCell[]): void;
  /** Resolves once the rows added so far have left for the sink (backpressure), or rejects with the writer's failure. */
  drained(): Promise<void>;
  /** Ends the sheet; no row may follow. */
  commit(): void;
}

export interface WorkbookStream {
  /** Starts the next sheet (the previous one committed), its first row `header`, frozen. */
  addSheet(name: string, header: readonly string[]): SheetStream;
  /** Writes the workbook's own parts and ends the zip; resolves when the sink has every byte. */
  finish(): Promise<void>;
  /** Stops writing: the zip is abandoned, nothing more reaches the sink. */
  abort(): void;
}

/** The zip's bytes to the export's sink, one chunk at a time (the sink's own backpressure). */
function sinkStream(sink: ByteSink): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      sink.write(chunk).then(
        () => done(),
        (err: unknown) => done(err as Error),
      );
    },
  });
}

/** The writable side of a stream, as Node's and readable-stream's streams both keep it. */
interface SheetPipe extends NodeJS.EventEmitter {
  _writableState: { needDrain: boolean };
}

/**
 * The stream exceljs writes a sheet's XML into is handed to the zip through a PassThrough
 * (archiver-utils' normalizeInputSource, a readable-stream 2 PassThrough), which exceljs writes to
 * without heeding its return: the PassThrough is where the XML waits. exceljs 4.4.0 keeps it as the
 * first of the sheet stream's `pipes`.
 */
function sheetPipe(sheet: ExcelSheet): SheetPipe {
  const pipe = (sheet as unknown as { stream: { pipes?: unknown[] } }).stream.pipes?.[0] as Partial<SheetPipe> | undefined;
  if (typeof pipe?._writableState?.needDrain !== 'boolean' || typeof pipe.once !== 'function') {
    throw new AppError('INTERNAL', 'exceljs: the sheet stream is not piped into the zip as expected');
  }
  return pipe as SheetPipe;
}

/**
 * exceljs works out each cell's style anew (two thirds of its time on a table of numbers); the
 * cells of an export have no style but the time format, so the style of each kind of cell is
 * worked out once and its id reused: the same ids, the same file.
 */
function memoizeStyles(book: ExcelWorkbook): void {
  type Styles = { addStyleModel(model: { numFmt?: string } | undefined, cellType: number): number };
  const styles = (book as unknown as { styles: Styles }).styles;
  const add = styles.addStyleModel.bind(styles);
  const ids = new Map<string, number>();
  styles.addStyleModel = (model, cellType) => {
    const key = `${cellType}|${model?.numFmt ?? ''}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = add(model, cellType);
      ids.set(key, id);
    }
    return id;
  };
}

/** Opens a workbook whose zip goes to `sink`. */
export function openWorkbookStream(sink: ByteSink): WorkbookStream {
  const out = sinkStream(sink);
  const book: ExcelWorkbook = new (loadExcel().stream.xlsx.WorkbookWriter)({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  memoizeStyles(book);
  // The first failure of the zip or of the sink; later waits reject with it.
  let failure: Error | undefined;
  let failed!: (err: Error) => void;
  const failedPromise = new Promise<never>((_resolve, reject) => {
    failed = (err) => {
      failure ??= err;
      reject(failure);
    };
  });
  failedPromise.catch(() => undefined);
  const zip = (book as unknown as { zip: NodeJS.EventEmitter & { abort(): void } }).zip;
  zip.on('error', (err: Error) => failed(err));
  out.on('error', (err: Error) => failed(err));

  return {
    addSheet(name, header) {
      const sheet = book.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
      sheet.addRow([...header]).commit();
      const pipe = sheetPipe(sheet);
      return {
        addRow(cells) {
          const row = sheet.addRow(cells as unknown[]);
          for (let i = 0; i < cells.length; i++) if (cells[i] instanceof Date) row.getCell(i + 1).numFmt = TIME_FORMAT;
          row.commit();
        },
        async drained() {
          if (failure) throw failure;
          if (pipe._writableState.needDrain) await Promise.race([once(pipe, 'drain'), failedPromise]);
        },
        commit() {
          sheet.commit();
        },
      };
    },
    async finish() {
      if (failure) throw failure;
      await Promise.race([book.commit(), failedPromise]);
    },
    abort() {
      zip.abort();
      out.destroy();
    },
  };
}
