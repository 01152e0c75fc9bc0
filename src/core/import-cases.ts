import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Store } from '../store/open-store.js';
import type { CaseWrite } from '../store/cases-repo.js';
import { nowIso } from '../store/clock.js';
import { requireDictionary } from './dictionaries.js';
import { mergeCaseWrite } from './case-merge.js';
import { caseFileReader } from './import/case-file-readers.js';
import { readCaseFileInWorker } from './import/read-in-worker.js';
import type { ReadErrorShape } from './import/read-worker-protocol.js';

/** A case that could not be read: its error code, message and where (file, line, case). */
export type ImportProblem = ReadErrorShape;

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

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // the reader reports the file it cannot open
  }
}

/**
 * Imports case files (`.dat`/`.txt` fixed-width text, `.csdb`, `.json` sync case arrays) into a
 * dictionary, streaming: a worker thread reads and encodes at most a few batches ahead of this
 * thread, which merges each batch with the stored cases and commits it. A case that cannot be
 * read is reported with where and why and the others are still stored; the caller decides the
 * exit status from `failed`. Each committed batch that changes anything gets its own revision.
 * `onProgress` gets the cases written so far and the share of all the files' bytes read (0 to 1).
 */
export async function importCases(
  store: Store,
  dictionaryName: string,
  files: string[],
  onProgress?: (done: number, share: number) => void,
): Promise<ImportReport> {
  const dict = requireDictionary(store, dictionaryName);
  // Refuse an unknown file type before anything is read.
  for (const f of files) caseFileReader(f);
  const deviceId = store.settings.serverDeviceId();
  const reports: FileImportReport[] = [];
  let done = 0;
  const sizes = files.map(fileSize);
  const allBytes = sizes.reduce((a, b) => a + b, 0);
  let bytesBefore = 0;
  let share = 0;
  for (const [index, file] of files.entries()) {
    const report: FileImportReport = { file, read: 0, inserted: 0, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 0, errors: [] };
    const write = (cases: CaseWrite[]) => {
      if (cases.length === 0) return;
      store.cases.write(() => {
        const existing = store.cases.getMany(dict.id, [...new Set(cases.map((c) => c.guid))]);
        let revision: number | undefined;
        const now = nowIso();
        for (const c of cases) {
          const { outcome, write } = mergeCaseWrite(c, existing.get(c.guid), deviceId);
          report[outcome] += 1;
          if (!write) continue;
          revision ??= store.cases.nextRevision(dict.id, `import:${basename(file)}`);
          store.cases.upsert(dict.id, write, revision, now);
          // A case repeated later in the same batch must compare against this version.
          existing.set(c.guid, { ...write, revision, createdAt: '', modifiedAt: '' });
        }
      });
      done += cases.length;
      onProgress?.(done, share);
    };
    // Reading and encoding run in a worker thread; this thread only merges and commits.
    const onRead = (read: number) => (share = allBytes > 0 ? (bytesBefore + read * sizes[index]!) / allBytes : 0);
    for await (const items of readCaseFileInWorker(file, dict.model, onRead)) {
      const cases: CaseWrite[] = [];
      for (const item of items) {
        if (item.ok) {
          report.read += 1;
          report.warnings += item.warnings;
          cases.push(item.write);
        } else {
          report.failed += 1;
          report.errors.push(item.error);
        }
      }
      write(cases);
    }
    reports.push(report);
    bytesBefore += sizes[index]!;
  }
  const total = { read: 0, inserted: 0, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 0 };
  for (const r of reports) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r[k];
  return { dictionary: dict.name, files: reports, total };
}
