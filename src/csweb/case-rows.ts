/**
 * CSWeb case rows and their notes → the sync JSON case object the data-collection client would
 * have uploaded (docs/migrating-from-csweb.md#what-is-carried-over), so sds reads it through the
 * same normaliser as an upload. Pure: the reader (case-reader.ts) does the SQL.
 */
import { decodeQuestionnaire } from './questionnaire.js';
import { wallTimeToUtc, type WallTimeFit } from './wall-time.js';
import type { CaseForm } from './layout.js';

/** A row of a `<DICT>` table as read, the GUID already in text form. */
export interface CswebCaseRow {
  /** How the row stores the case (layout.ts): 8.0's columns, or 8.1's whole case JSON. */
  form: CaseForm;
  guid: string;
  caseids: string;
  label: string;
  questionnaire: Buffer;
  revision: number;
  deleted: boolean;
  verified: boolean;
  clock: string;
  partialSaveMode: string | null;
  partialSaveFieldName: string | null;
  partialSaveLevelKey: string | null;
  partialSaveRecordOccurrence: number | null;
  partialSaveItemOccurrence: number | null;
  partialSaveSubitemOccurrence: number | null;
  notes: CswebNoteRow[];
  /** The case's binary items (`<DICT>_case_binary_data` rows), in CSWeb's order. */
  binaryItems: CswebBinaryRow[];
}

/** A row of a `<DICT>_case_binary_data` table; `modifiedTime` is CSWeb's wall time text (null when unset). */
export interface CswebBinaryRow {
  signature: string;
  modifiedTime: string | null;
}

/** A row of a `<DICT>_notes` table; `modifiedTime` is CSWeb's wall time text. */
export interface CswebNoteRow {
  operatorId: string;
  fieldName: string;
  levelKey: string;
  recordOccurrence: number;
  itemOccurrence: number;
  subitemOccurrence: number;
  content: string;
  modifiedTime: string;
}

/** The sync JSON object of a row, and what could not be carried exactly (note times). */
export interface ConvertedRow {
  /** The older sync format's case object; for an 8.1 row (`form` 'v3'), the 8.1 case JSON as the client sent it. */
  syncJson: Record<string, unknown>;
  /** `lines` for a pre-7.5 case stored as record lines; `v3` for CSWeb 8.1's whole case JSON. */
  form: 'json' | 'lines' | 'v3';
  /** One entry per note whose wall time was ambiguous or skipped in `zone`. */
  timeIssues: { note: number; modifiedTime: string; fit: Exclude<WallTimeFit, 'exact'> }[];
}

/**
 * Builds the sync JSON of one case row (pure). Throws an Error saying why for content that
 * cannot be decoded, a clock that is not JSON, or a note time that is not a time.
 */
export function rowToSyncJson(row: CswebCaseRow, zone: string, maxContentBytes: number): ConvertedRow {
  const content = decodeQuestionnaire(row.questionnaire, maxContentBytes);
  if (row.form === 'v3') return v3Row(content);
  let clock: unknown = [];
  if (row.clock.trim() !== '') {
    try {
      clock = JSON.parse(row.clock);
    } catch {
      throw new Error('its clock column is not JSON');
    }
  }
  const timeIssues: ConvertedRow['timeIssues'] = [];
  const notes = row.notes.map((n, k) => {
    const t = wallTimeToUtc(n.modifiedTime, zone);
    if (t.fit !== 'exact') timeIssues.push({ note: k, modifiedTime: n.modifiedTime, fit: t.fit });
    return {
      content: n.content,
      field: {
        name: n.fieldName,
        levelKey: n.levelKey,
        recordOccurrence: n.recordOccurrence,
        itemOccurrence: n.itemOccurrence,
        subitemOccurrence: n.subitemOccurrence,
      },
      operatorId: n.operatorId,
      modifiedTime: t.iso,
    };
  });
  const syncJson: Record<string, unknown> = {
    id: row.guid,
    caseids: row.caseids,
    label: row.label,
    deleted: row.deleted,
    verified: row.verified,
    clock,
    notes,
  };
  if (content.form === 'json') syncJson['level-1'] = content.text;
  else syncJson.data = content.lines.filter((l) => l !== '');
  if (row.partialSaveMode) {
    syncJson.partialSave =
      row.partialSaveFieldName === null
        ? { mode: row.partialSaveMode }
        : {
            mode: row.partialSaveMode,
            field: {
              name: row.partialSaveFieldName,
              levelKey: row.partialSaveLevelKey ?? '',
              recordOccurrence: row.partialSaveRecordOccurrence ?? 0,
              itemOccurrence: row.partialSaveItemOccurrence ?? 0,
              subitemOccurrence: row.partialSaveSubitemOccurrence ?? 0,
            },
          };
  }
  return { syncJson, form: content.form, timeIssues };
}

/**
 * CSWeb 8.1 keeps the case as the 8.1 client sent it (docs/migrating-from-csweb.md#csweb-81): its
 * JSON behind the same marker, notes (with UTC times) and partial save inside, so no wall time
 * is read.
 */
function v3Row(content: ReturnType<typeof decodeQuestionnaire>): ConvertedRow {
  if (content.form !== 'json') throw new Error('its questionnaire is not the compressed case JSON CSWeb 8.1 stores');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.text);
  } catch {
    throw new Error('its stored case is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('its stored case is not a JSON object');
  return { syncJson: parsed as Record<string, unknown>, form: 'v3', timeIssues: [] };
}
