/**
 * The size limits of a stored case (docs/limits.md) and their checks. Every path that stores a
 * case (sync upload, `sds cases import` of .dat/.csdb/.json) checks the case as it will be
 * written, so nothing larger than these limits reaches the store. The checks compare string
 * lengths (UTF-16 code units, what `String.length` gives; at most 3 UTF-8 bytes each) and
 * counts: nothing is re-encoded, so the sync upload's fast path stays fast. Pure; no I/O.
 */

import { AppError } from '../../shared/errors.js';
import type { CaseNote, ClockEntry, FieldRef, PartialSave } from './model.js';

/** The limits of one case's fields, and of the nesting of its JSON. */
export interface CaseLimits {
  /** Characters of the case label. */
  labelChars: number;
  /** Characters of `caseids` (the case key). */
  caseidsChars: number;
  /** Characters of the case's `level-1` JSON text as stored (from `level-1` or the older `data` lines). */
  dataChars: number;
  /** Notes of one case. */
  notes: number;
  /** Characters of one note's text. */
  noteChars: number;
  /** Characters of each short text field: a note's operator id, time, field name and level key; a clock device id; the partial-save field. */
  textChars: number;
  /** Entries of a case's vector clock (one per device that changed it). */
  clockEntries: number;
  /** Nesting of arrays and objects in a JSON body or a `level-1` text. */
  jsonDepth: number;
}

export const DEFAULT_CASE_LIMITS: Readonly<CaseLimits> = {
  labelChars: 4096,
  caseidsChars: 1024,
  dataChars: 4 * 1024 * 1024,
  notes: 1000,
  noteChars: 65_535,
  textChars: 1024,
  clockEntries: 1000,
  jsonDepth: 64,
};

/** What the checks read of a case as it will be stored. */
export interface CaseFields {
  guid: string;
  caseKey: string;
  label: string;
  data: string;
  clock: readonly ClockEntry[];
  notes: readonly CaseNote[];
  partialSave: PartialSave | null;
  caseNote?: string;
}

/** The case named in messages: its key, cut when the key itself is the problem. */
function caseName(c: Pick<CaseFields, 'guid' | 'caseKey'>, limits: CaseLimits): string {
  const key = c.caseKey.length > Math.min(limits.caseidsChars, 80) ? `${c.caseKey.slice(0, 40)}…` : c.caseKey;
  return key === '' ? c.guid : key;
}

/** A CASE_TOO_LARGE error naming the case, the field and the limit (413; docs/limits.md). */
export function caseTooLarge(
  c: Pick<CaseFields, 'guid' | 'caseKey'>,
  field: string,
  size: number,
  limit: number,
  unit: string,
  limits: CaseLimits,
): AppError {
  const name = caseName(c, limits);
  return new AppError(
    'CASE_TOO_LARGE',
    `case ${JSON.stringify(name)} (id ${c.guid}): ${field} has ${size} ${unit}, more than the limit of ${limit}`,
    {
      case: name,
      id: c.guid,
      field,
      limit,
      size,
    },
  );
}

function checkText(c: CaseFields, field: string, value: string, limit: number, limits: CaseLimits): void {
  if (value.length > limit) throw caseTooLarge(c, field, value.length, limit, 'characters', limits);
}

function checkRef(c: CaseFields, path: string, ref: FieldRef | undefined, limits: CaseLimits): void {
  if (!ref) return;
  checkText(c, `${path}.name`, ref.name, limits.textChars, limits);
  checkText(c, `${path}.levelKey`, ref.levelKey, limits.textChars, limits);
}

/**
 * Checks a case as it will be stored against `limits`; throws CASE_TOO_LARGE (details: case,
 * id, field, limit, size) at the first field over its limit.
 */
export function checkCaseFields(c: CaseFields, limits: CaseLimits): void {
  checkText(c, 'caseids', c.caseKey, limits.caseidsChars, limits);
  checkText(c, 'label', c.label, limits.labelChars, limits);
  checkText(c, 'level-1', c.data, limits.dataChars, limits);
  if (c.clock.length > limits.clockEntries) throw caseTooLarge(c, 'clock', c.clock.length, limits.clockEntries, 'entries', limits);
  // The field's name is built only for an error: this runs for every case of every upload.
  for (let k = 0; k < c.clock.length; k++) {
    const n = c.clock[k]!.deviceId.length;
    if (n > limits.textChars) throw caseTooLarge(c, `clock[${k}].deviceId`, n, limits.textChars, 'characters', limits);
  }
  if (c.notes.length > limits.notes) throw caseTooLarge(c, 'notes', c.notes.length, limits.notes, 'notes', limits);
  for (let k = 0; k < c.notes.length; k++) {
    const n = c.notes[k]!;
    checkText(c, `notes[${k}].content`, n.content, limits.noteChars, limits);
    checkText(c, `notes[${k}].operatorId`, n.operatorId, limits.textChars, limits);
    checkText(c, `notes[${k}].modifiedTime`, n.modifiedTime, limits.textChars, limits);
    checkRef(c, `notes[${k}].field`, n.field, limits);
  }
  if (c.partialSave) checkRef(c, 'partialSave.field', c.partialSave.field, limits);
  if (c.caseNote !== undefined) checkText(c, 'caseNote', c.caseNote, limits.noteChars, limits);
}
