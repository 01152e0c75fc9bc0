import { extname } from 'node:path';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { SyncCase } from '../../cspro/case/model.js';
import { readDatFile } from '../../cspro/case/dat-reader.js';
import { readJsonCasesFile } from '../../cspro/case/json-cases-reader.js';
import { checkCsdbFile, readCsdbFile } from '../../cspro/case/csdb-reader.js';
import type { CaseWarning, ReadPosition } from '../../cspro/case/case-result.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import { AppError } from '../../shared/errors.js';

/** One case read, with its warnings and (.csdb, .json) its 0-based position, or why it could not be read. */
export type ReadResult = { ok: true; case: SyncCase; warnings?: CaseWarning[]; index?: number } | { ok: false; error: AppError };
/** `opts.limits`: checked by the JSON reader before it parses a case's parts (docs/limits.md); the others ignore it. */
export type CaseFileReader = (path: string, dict: Dictionary, onPosition?: ReadPosition, opts?: { limits?: CaseLimits }) => AsyncIterable<ReadResult>;

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

/**
 * Checks a case file against the dictionary before any case of any file is read, where its format
 * says which dictionary wrote it: a `.csdb` embeds its dictionary and has one column per item.
 * Throws DICTIONARY_MISMATCH naming the differences. Text and JSON files carry no such record.
 */
export function checkCaseFile(file: string, dict: Dictionary): void {
  if (extname(file).toLowerCase() === '.csdb') checkCsdbFile(file, dict);
}
