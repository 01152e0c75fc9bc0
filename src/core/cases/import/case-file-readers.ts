import { extname } from 'node:path';
import type { Dictionary } from '../../../cspro/dictionary/model.js';
import type { SyncCase } from '../../../cspro/case/model.js';
import { readDatFile } from '../../../cspro/case/dat-reader.js';
import { readJsonCasesFile } from '../../../cspro/case/json-cases-reader.js';
import { checkCsdbFile, readCsdbFile } from '../../../cspro/case/csdb-reader.js';
import type { CaseWarning, ReadPosition } from '../../../cspro/case/case-result.js';
import type { CaseLimits } from '../../../cspro/case/case-limits.js';
import { AppError } from '../../../shared/errors.js';
import { checkDatFileDictionary } from './dat-dictionary-check.js';

/** One case read, with its warnings and (.csdb, .json) its 0-based position, or why it could not be read. */
export type ReadResult = { ok: true; case: SyncCase; warnings?: CaseWarning[]; index?: number } | { ok: false; error: AppError };
/** `opts.limits`: checked by the JSON reader before it parses a case's parts (docs/limits.md); the others ignore it. */
export type CaseFileReader = (
  path: string,
  dict: Dictionary,
  onPosition?: ReadPosition,
  opts?: { limits?: CaseLimits },
) => AsyncIterable<ReadResult>;

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
    throw new AppError(
      'FILE_FORMAT_UNKNOWN',
      `${file}: unknown case file type; use .dat or .txt (fixed-width), .csdb, or .json (sync case array)`,
      {
        file,
      },
    );
  }
  return reader;
}

/**
 * Checks a case file against the dictionary before any case of any file is stored: a `.csdb`
 * embeds its dictionary and has one column per item; a text file whose first `mismatchCases`
 * cases all have record types the dictionary does not know was written with another one
 * (dat-dictionary-check.ts). Throws DICTIONARY_MISMATCH naming the differences. JSON files carry
 * no such sign.
 */
export async function checkCaseFile(file: string, dict: Dictionary, opts: { mismatchCases: number }): Promise<void> {
  const ext = extname(file).toLowerCase();
  if (ext === '.csdb') checkCsdbFile(file, dict);
  else if (ext === '.dat' || ext === '.txt') await checkDatFileDictionary(file, dict, opts.mismatchCases);
}
