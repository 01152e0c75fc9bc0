import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Store } from '../../../store/open-store.js';
import type { CaseWrite } from '../../../store/cases-repo.js';
import { requireDictionary } from '../../dictionaries/index.js';
import { writeMergedCases } from '../write.js';
import { newRevision } from '../revisions.js';
import { AppError, toAppError } from '../../../shared/errors.js';
import { caseFileReader, checkCaseFile } from './case-file-readers.js';
import { readCaseFileInWorker } from './read-in-worker.js';
import type { ImportWarning, ReadErrorShape } from './read-worker-protocol.js';
import { errorLine, ImportLog, warningLine } from './import-log.js';
import { limitsOf } from '../../home/index.js';

export { warningLine } from './import-log.js';

/** A case that could not be read: its error code, message and where (file, line, case). */
type ImportProblem = ReadErrorShape;

/** Warnings and errors listed per file in a report; the log file has them all. */
const IMPORT_DETAIL_LIMIT = 1000;

interface FileImportReport {
  file: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Incoming cases whose vector clock is older than the stored case's: ignored. */
  older: number;
  failed: number;
  warnings: number;
  /** The first unreadable cases (up to the detail limit); `errorsNotListed` counts the rest. */
  errors: ImportProblem[];
  errorsNotListed: number;
  /** The first warnings (up to the detail limit), each with case, line or position, record, item, value. */
  warningList: ImportWarning[];
  warningsNotListed: number;
}

export interface ImportReport {
  dictionary: string;
  /** The import's log file: every warning and unreadable case of every file. */
  log: string;
  files: FileImportReport[];
  total: Omit<FileImportReport, 'file' | 'errors' | 'errorsNotListed' | 'warningList' | 'warningsNotListed'>;
  /** Present when `signal` stopped the import: the batches committed before it stay, the rest was not read. */
  stopped?: true;
}

export interface ImportOptions {
  /** Gets the cases written so far and the share of all the files' bytes read (0 to 1). */
  onProgress?: (done: number, share: number) => void;
  /** Warnings and errors listed per file in the report (default IMPORT_DETAIL_LIMIT). */
  detailLimit?: number;
  /** The clock that names the log file. */
  now?: () => Date;
  /** Aborted (Ctrl-C): the import stops after the batch it is writing (docs/cli.md, "Ctrl-C and SIGTERM"). */
  signal?: AbortSignal;
}

/**
 * Imports case files (`.dat`/`.txt` fixed-width text, `.csdb`, `.json` sync case arrays) into a
 * dictionary, streaming: a worker thread reads and encodes at most a few batches ahead of this
 * thread, which merges each batch with the stored cases and commits it. A case that cannot be
 * read is reported with where and why and the others are still stored; the caller decides the
 * exit status from `failed`. Each committed batch that changes anything gets its own revision.
 *
 * Before anything is stored, every file is checked: an unknown type is FILE_FORMAT_UNKNOWN, a
 * `.csdb` written with another dictionary, or a `.dat` whose first cases all have record types
 * the dictionary does not know (limits.import_mismatch_cases), DICTIONARY_MISMATCH, and no file
 * is imported. Every
 * warning and unreadable case goes to the import's log file as it arrives (`report.log`); the
 * report lists the first `detailLimit` of each per file and counts the rest, so memory stays
 * bounded whatever the file holds.
 */
export async function importCases(
  store: Store,
  dictionaryName: string,
  files: string[],
  options: ImportOptions | ((done: number, share: number) => void) = {},
): Promise<ImportReport> {
  const opts: ImportOptions = typeof options === 'function' ? { onProgress: options } : options;
  const limit = opts.detailLimit ?? IMPORT_DETAIL_LIMIT;
  const dict = await requireDictionary(store, dictionaryName);
  // Refuse an unknown file type, or a file of another dictionary, before anything is read.
  for (const f of files) caseFileReader(f);
  const { importMismatchCases } = limitsOf(store);
  for (const f of files) {
    try {
      await checkCaseFile(f, dict.model, { mismatchCases: importMismatchCases });
    } catch (err) {
      const e = toAppError(err);
      if (e.code !== 'DICTIONARY_MISMATCH') throw e;
      throw new AppError(e.code, `${e.message}; no file was imported`, e.details, { cause: e });
    }
  }
  const deviceId = await store.settings.serverDeviceId();
  const started = (opts.now ?? (() => new Date()))();
  const log = ImportLog.create(store.home.importLogs, dict.name, started);
  try {
    log.write([`import into ${dict.name} started ${started.toISOString()}: ${files.length} file(s)`]);
    const reports = await importFiles(store, dict, files, deviceId, log, limit, opts.onProgress, opts.signal);
    const total = { read: 0, inserted: 0, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 0 };
    for (const r of reports) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r[k];
    const stopped = opts.signal?.aborted === true;
    log.write([
      `import ${stopped ? 'stopped (interrupted) after the batch it was writing' : 'finished'}: read ${total.read}, inserted ${total.inserted}, updated ${total.updated}, unchanged ${total.unchanged}, older ${total.older}, failed ${total.failed}, warnings ${total.warnings}`,
    ]);
    return { dictionary: dict.name, log: log.path, files: reports, total, ...(stopped ? { stopped: true as const } : {}) };
  } catch (err) {
    const e = toAppError(err);
    log.write([`import stopped: ${e.code}: ${e.message}`]);
    throw err;
  } finally {
    log.close();
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // the reader reports the file it cannot open
  }
}

async function importFiles(
  store: Store,
  dict: Awaited<ReturnType<typeof requireDictionary>>,
  files: string[],
  deviceId: string,
  log: ImportLog,
  limit: number,
  onProgress: ((done: number, share: number) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<FileImportReport[]> {
  const reports: FileImportReport[] = [];
  let done = 0;
  const sizes = files.map(fileSize);
  const allBytes = sizes.reduce((a, b) => a + b, 0);
  let bytesBefore = 0;
  let share = 0;
  const limits = limitsOf(store);
  for (const [index, file] of files.entries()) {
    log.write([`file ${file}`]);
    const report: FileImportReport = {
      file,
      read: 0,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      older: 0,
      failed: 0,
      warnings: 0,
      errors: [],
      errorsNotListed: 0,
      warningList: [],
      warningsNotListed: 0,
    };
    const write = async (cases: CaseWrite[]) => {
      if (cases.length === 0) return;
      await store.transaction(async (tx) => {
        let revision: number | undefined;
        await writeMergedCases(
          tx,
          dict.id,
          cases,
          deviceId,
          async () => (revision ??= await newRevision(tx, dict.id, `import:${basename(file)}`)),
          report,
          limits,
        );
      });
      done += cases.length;
      onProgress?.(done, share);
    };
    // Reading and encoding run in a worker thread; this thread only merges and commits.
    const onRead = (read: number) => (share = allBytes > 0 ? (bytesBefore + read * sizes[index]!) / allBytes : 0);
    for await (const items of readCaseFileInWorker(file, dict.model, onRead, limits)) {
      const cases: CaseWrite[] = [];
      const lines: string[] = [];
      for (const item of items) {
        if (item.ok) {
          report.read += 1;
          cases.push(item.write);
          for (const w of item.warnings ?? []) {
            report.warnings += 1;
            lines.push(warningLine(file, w));
            if (report.warningList.length < limit) report.warningList.push(w);
            else report.warningsNotListed += 1;
          }
        } else {
          report.failed += 1;
          lines.push(errorLine(file, item.error));
          if (report.errors.length < limit) report.errors.push(item.error);
          else report.errorsNotListed += 1;
        }
      }
      log.write(lines);
      await write(cases);
      // Leaving the loop stops the reading thread; what was committed stays.
      if (signal?.aborted) break;
    }
    log.write([
      `${file}: read ${report.read}, inserted ${report.inserted}, updated ${report.updated}, unchanged ${report.unchanged}, older ${report.older}, failed ${report.failed}, warnings ${report.warnings}`,
    ]);
    reports.push(report);
    bytesBefore += sizes[index]!;
    if (signal?.aborted) break;
  }
  return reports;
}
