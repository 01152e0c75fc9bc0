import { basename, extname } from 'node:path';
import type { Dictionary } from '../cspro/dictionary/model.js';
import type { SyncCase } from '../cspro/case/model.js';
import { readDatFile } from '../cspro/case/dat-reader.js';
import { readJsonCasesFile } from '../cspro/case/json-cases-reader.js';
import { readCsdbFile } from '../cspro/case/csdb-reader.js';
import type { Store } from '../store/open-store.js';
import { AppError, type ErrorDetails } from './errors.js';
import { requireDictionary } from './dictionaries.js';
import { mergeIncoming } from './case-merge.js';
import { nowIso } from '../store/clock.js';

/** Cases written per transaction: large enough to amortise commits, small enough to stream. */
const BATCH_SIZE = 500;

type ReadResult = { ok: true; case: SyncCase; warnings?: unknown[] } | { ok: false; error: AppError };
type Reader = (path: string, dict: Dictionary) => AsyncIterable<ReadResult>;

const READERS: Record<string, Reader> = {
  '.dat': readDatFile,
  '.txt': readDatFile,
  '.csdb': readCsdbFile,
  '.json': readJsonCasesFile,
};

export interface ImportProblem {
  code: string;
  message: string;
  details: ErrorDetails;
}

export interface FileImportReport {
  file: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Incoming cases whose vector clock is older than the stored case's: ignored. */
  older: number;
  failed: number;
  warnings: number;
  errors: ImportProblem[];
}

export interface ImportReport {
  dictionary: string;
  files: FileImportReport[];
  total: Omit<FileImportReport, 'file' | 'errors'>;
}

/**
 * Imports case files (`.dat`/`.txt` fixed-width text, `.csdb`, `.json` sync case arrays) into a
 * dictionary, streaming: at most one batch of cases is in memory. A case that cannot be read is
 * reported with where and why and the others are still stored; the caller decides the exit
 * status from `failed`. Each committed batch that changes anything gets its own revision.
 */
export async function importCases(
  store: Store,
  dictionaryName: string,
  files: string[],
  onProgress?: (done: number) => void,
): Promise<ImportReport> {
  const dict = requireDictionary(store, dictionaryName);
  const readers = files.map((f) => {
    const reader = READERS[extname(f).toLowerCase()];
    if (!reader) {
      throw new AppError('FILE_FORMAT_UNKNOWN', `${f}: unknown case file type; use .dat or .txt (fixed-width), .csdb, or .json (sync case array)`, {
        file: f,
      });
    }
    return reader;
  });
  const deviceId = store.settings.serverDeviceId();
  const reports: FileImportReport[] = [];
  let done = 0;
  for (const [i, file] of files.entries()) {
    const report: FileImportReport = { file, read: 0, inserted: 0, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 0, errors: [] };
    let batch: SyncCase[] = [];
    const flush = () => {
      if (batch.length === 0) return;
      const cases = batch;
      batch = [];
      store.cases.write(() => {
        const existing = store.cases.getMany(dict.id, [...new Set(cases.map((c) => c.id))]);
        let revision: number | undefined;
        const now = nowIso();
        for (const c of cases) {
          const { outcome, write } = mergeIncoming(c, existing.get(c.id), deviceId);
          report[outcome] += 1;
          if (!write) continue;
          revision ??= store.cases.nextRevision(dict.id, `import:${basename(file)}`);
          store.cases.upsert(dict.id, write, revision, now);
          // A case repeated later in the same batch must compare against this version.
          existing.set(c.id, { ...write, revision, createdAt: '', modifiedAt: '' });
        }
      });
      done += cases.length;
      onProgress?.(done);
    };
    for await (const r of readers[i]!(file, dict.model)) {
      if (r.ok) {
        report.read += 1;
        report.warnings += r.warnings?.length ?? 0;
        batch.push(r.case);
        if (batch.length >= BATCH_SIZE) flush();
      } else {
        report.failed += 1;
        report.errors.push({ code: r.error.code, message: r.error.message, details: r.error.details });
      }
    }
    flush();
    reports.push(report);
  }
  const total = { read: 0, inserted: 0, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 0 };
  for (const r of reports) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r[k];
  return { dictionary: dict.name, files: reports, total };
}
