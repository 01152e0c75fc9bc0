/**
 * Streaming reader of a fixed-width CSPro `.dat` file (docs/cspro-formats.md#dat-files). Lines are read one at a
 * time (node:readline over a read stream) and grouped into cases by the level-1 key: the raw
 * text of the level-1 id columns; consecutive lines with the same text are one case. Only the
 * current case's lines are held in memory, plus a number per key seen (to warn about repeats).
 *
 * Accepted as CSPro writes or tolerates them: a UTF-8 BOM on line 1, `\r\n` or `\n` endings,
 * trimmed lines (characters past the end are blanks), `~` erased lines and blank lines (skipped).
 *
 * A case is NOT read (an `{ ok: false }` result with code CASE_INVALID and details file, line,
 * case key, record, item, and the reason) when one of its lines
 *  - has a record type that matches no record of the dictionary (CSPro skips such a line with a
 *    "bad record type" message; we refuse the case, because a silently half-read case is worse
 *    than a reported one, and the line may belong to a case whose key is damaged);
 *  - has a numeric id item that is not a number (the case key would be meaningless).
 * A line that ends inside the record-type/id area is read as if padded with blanks, as CSPro
 * pads it before reading the ids (real files trim a blank last id item away).
 * Everything else is read, with a warning on the case:
 *  - a numeric item whose text is not a number → value DEFAULT, as CSPro reads it;
 *  - more record occurrences than maxOccurrences → the extra lines dropped, as CSPro does;
 *  - a blank id item (also one trimmed away); a case key that already appeared earlier in the file (non-consecutive
 *    lines: both cases get the same GUID, so the store keeps the later one).
 * The other cases of the file are always read. A file that cannot be opened throws IO_ERROR.
 *
 * Each case gets `caseids` = the raw text of its level-1 id columns (what CSPro uses as the key
 * of a text case), a deterministic GUID from it (case-guid.ts), `clock: []` (the store assigns
 * clocks) and no label.
 */

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AppError } from '../../shared/errors.js';
import type { Dictionary } from '../dictionary/model.js';
import { lineKeyText } from './case-key.js';
import { caseGuid } from './case-guid.js';
import { withCaseDetails, type CaseWarning, type DatCaseResult, type ReadPosition } from './case-result.js';
import type { SyncCase } from './model.js';
import { textToCase, type TextLine } from './text-to-case.js';

async function assertReadable(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    await handle.close();
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot read ${path}: ${(err as Error).message}`, { file: path }, { cause: err });
  }
}

/** Builds one case result from the lines of one group. */
/**
 * The keys already met, as 52-bit numbers taken from each case's GUID (itself a hash of the key):
 * a Set of key strings grew by the key and the line it was cut from, tens of MB at a million
 * cases. Two keys sharing 52 bits would only cost a spurious duplicate warning.
 */
type SeenKeys = Set<number>;

// 13 hex digits of the GUID, skipping its dashes and its fixed version digit (index 14).
const fingerprint = (guid: string): number => Number.parseInt(guid.slice(0, 8) + guid.slice(9, 13) + guid.slice(15, 16), 16);

function buildCase(dict: Dictionary, path: string, lines: TextLine[], rawKey: string, seen: SeenKeys): DatCaseResult {
  const firstLine = lines[0]?.line ?? 0;
  try {
    const { level1, warnings } = textToCase(dict, lines);
    // CSPro keeps the id text as read (FixedWidthNumericWithStringBufferCaseItem), so the key
    // of a text case is the raw id text, even where it differs from the dictionary's zero fill.
    const caseids = rawKey;
    const allWarnings: CaseWarning[] = warnings;
    const id = caseGuid(dict.name, caseids);
    const print = fingerprint(id);
    if (seen.has(print)) {
      allWarnings.push({
        kind: 'duplicate-key',
        message: `case key ${JSON.stringify(caseids)} appeared earlier in the file; the later case replaces it`,
        line: firstLine,
      });
    }
    seen.add(print);
    const syncCase: SyncCase = { id, caseids, clock: [], 'level-1': level1 };
    return { ok: true, case: syncCase, firstLine, warnings: allWarnings };
  } catch (err) {
    return { ok: false, error: withCaseDetails(err, { file: path, line: firstLine, case: rawKey }) };
  }
}

/**
 * Reads a `.dat` file case by case (see the file comment for what is an error and what is a
 * warning). Throws IO_ERROR when the file cannot be opened or read.
 */
export async function* readDatFile(path: string, dict: Dictionary, onPosition?: ReadPosition): AsyncGenerator<DatCaseResult> {
  await assertReadable(path);
  const size = onPosition ? (await stat(path)).size : 0;
  const input = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Infinity });
  const seen: SeenKeys = new Set();
  let lines: TextLine[] = [];
  let currentKey: string | undefined;
  let lineNumber = 0;
  try {
    for await (let text of reader) {
      lineNumber++;
      if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '' || text.startsWith('~')) continue;
      const key = lineKeyText(dict, text, 1);
      if (currentKey !== undefined && key !== currentKey) {
        onPosition?.(input.bytesRead, size);
        yield buildCase(dict, path, lines, currentKey, seen);
        lines = [];
      }
      currentKey = key;
      lines.push({ text, line: lineNumber });
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('IO_ERROR', `cannot read ${path}: ${(err as Error).message}`, { file: path, line: lineNumber }, { cause: err });
  } finally {
    reader.close();
    input.destroy();
  }
  onPosition?.(size, size);
  if (currentKey !== undefined) yield buildCase(dict, path, lines, currentKey, seen);
}
