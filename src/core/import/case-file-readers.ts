import { extname } from 'node:path';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { SyncCase } from '../../cspro/case/model.js';
import type { ReadPosition } from '../../cspro/case/case-result.js';
import { readDatFile } from '../../cspro/case/dat-reader.js';
import { readJsonCasesFile } from '../../cspro/case/json-cases-reader.js';
import { readCsdbFile } from '../../cspro/case/csdb-reader.js';
import { AppError } from '../../shared/errors.js';

export type ReadResult = { ok: true; case: SyncCase; warnings?: unknown[] } | { ok: false; error: AppError };
export type CaseFileReader = (path: string, dict: Dictionary, onPosition?: ReadPosition) => AsyncIterable<ReadResult>;

const READERS: Record<string, CaseFileReader> = {
  '.dat': readDatFile,
  '.txt': readDatFile,
  '.csdb': readCsdbFile,
  '.json': readJsonCasesFile,
};

/** The reader for a case file by its extension; FILE_FORMAT_UNKNOWN for any other file. */
export function caseFileReader(file: string): CaseFileReader {
  const reader = READERS[extname(file).toLowerCase()];
  if (!reader) {
    throw new AppError('FILE_FORMAT_UNKNOWN', `${file}: unknown case file type; use .dat or .txt (fixed-width), .csdb, or .json (sync case array)`, {
      file,
    });
  }
  return reader;
}
