import type { Dictionary } from '../../../cspro/dictionary/model.js';
import { readDatFile } from '../../../cspro/case/dat-reader.js';
import { UNKNOWN_RECORD_TYPE } from '../../../cspro/case/text-to-case.js';
import { AppError } from '../../../shared/errors.js';

/** Record types shown in the message, at most (a dictionary can have hundreds of records). */
const TYPES_SHOWN = 8;

/**
 * Checks that a text case file (`.dat`, `.txt`) belongs to `dict` before any case is stored:
 * when its first `cases` cases (or all of them, in a shorter file) each have a line whose record
 * type the dictionary does not know, the file was written with another dictionary, and the whole
 * import is refused with one DICTIONARY_MISMATCH naming the file, the first line, the types seen
 * and the types the dictionary expects, instead of a CASE_INVALID per case. One readable case
 * among them, or another kind of error, ends the check: a damaged case later in a right file is
 * reported as before (docs/import.md, "Wrong dictionary").
 */
export async function checkDatFileDictionary(file: string, dict: Dictionary, cases: number): Promise<void> {
  const seen: string[] = [];
  let firstLine: number | undefined;
  let count = 0;
  for await (const r of readDatFile(file, dict)) {
    if (r.ok || r.error.code !== 'CASE_INVALID' || !r.error.message.startsWith(`${UNKNOWN_RECORD_TYPE} `)) return;
    count += 1;
    firstLine ??= typeof r.error.details.line === 'number' ? r.error.details.line : undefined;
    const type = String(r.error.details.record ?? '');
    if (!seen.includes(type)) seen.push(type);
    if (count >= cases) break;
  }
  if (count === 0) return;
  const expected = dict.levels.flatMap((l) => l.records.map((rec) => `"${rec.recordType}" (${rec.name})`));
  const { start, length } = dict.recordType;
  const columns = length > 1 ? `columns ${start}-${start + length - 1}` : `column ${start}`;
  const shown = (list: string[]) =>
    list.length > TYPES_SHOWN ? `${list.slice(0, TYPES_SHOWN).join(', ')}, … (${list.length} in all)` : list.join(', ');
  throw new AppError(
    'DICTIONARY_MISMATCH',
    `${file} is not a file of ${dict.name}: ${count === cases ? `its first ${count} cases` : `all ${count} of its cases`} have only record types ` +
      `${dict.name} does not know, from line ${firstLine ?? 1} on (seen in ${columns}: ${shown(seen.map((t) => JSON.stringify(t)))}); ` +
      `${dict.name} expects ${shown(expected)}`,
    {
      file,
      line: firstLine,
      record_types_seen: seen,
      record_types_expected: dict.levels.flatMap((l) => l.records.map((rec) => rec.recordType)),
      cases_checked: count,
    },
  );
}
