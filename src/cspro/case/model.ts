/**
 * The case model. Its data is kept in the data-collection client's sync JSON shape
 * (docs/cspro-formats.md#the-case-model): one canonical form, whether the case came from a `.dat`
 * file, a `.csdb` file or a sync JSON upload. Breakout flattens from it; `cases show --json`
 * prints it.
 *
 * Level object: `id` holds the level's id items; one key per record with ≥ 1 occurrence (an
 * object when the record's maxOccurrences is 1, else an array of objects); `level-N` keys hold
 * child level arrays. Inside a record object: one key per non-blank item (subitems included);
 * repeating items are arrays up to the last non-blank occurrence with `""` for blanks inside.
 * Numeric values are numbers; a special value mapped to a code in the item's first value set is
 * that code; an unmapped special is the string `MISSING`, `REFUSED` or `DEFAULT`. Alpha values
 * are right-trimmed strings.
 */

import type { BinaryValue } from './binary-descriptor.js';

export type ScalarValue = number | string;
export type ItemValue = ScalarValue | ScalarValue[];
/** A binary item (image, audio, ...) holds its descriptor instead (binary-descriptor.ts). */
export type RecordObject = { [item: string]: ItemValue | BinaryValue };

export interface LevelObject {
  id: RecordObject;
  [recordOrLevel: string]: RecordObject | RecordObject[] | LevelObject[];
}

export interface ClockEntry {
  deviceId: string;
  revision: number;
}

export interface FieldRef {
  name: string;
  levelKey: string;
  recordOccurrence: number;
  itemOccurrence: number;
  subitemOccurrence: number;
}

export interface CaseNote {
  content: string;
  field: FieldRef;
  operatorId: string;
  /** RFC 3339 UTC, e.g. `2024-03-01T10:00:00Z`. */
  modifiedTime: string;
}

export interface PartialSave {
  mode: 'add' | 'modify' | 'verify';
  field?: FieldRef;
}

/** A case as read from an import file or a sync upload, before it is stored. */
export interface SyncCase {
  id: string;
  caseids: string;
  label?: string;
  deleted?: boolean;
  verified?: boolean;
  notes?: CaseNote[];
  clock: ClockEntry[];
  partialSave?: PartialSave;
  /**
   * The case note, a text about the whole case. Only CSPro 8.1's case JSON carries it
   * (docs/sync.md#cspro-81-clients); the older sync format has no place for it.
   */
  caseNote?: string;
  'level-1': LevelObject;
}

/** Key of a child level inside a level object: `level-2`, `level-3`, ... */
export function levelKey(levelNumber: number): string {
  return `level-${levelNumber}`;
}
