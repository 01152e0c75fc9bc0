/**
 * CSPro 8.1's case JSON ("V3", docs/sync.md#v3-case-json) ⇄ the case model, which stays the one
 * of the older sync format (docs/cspro-formats.md#the-case-model): a V3 upload is translated into
 * that shape and checked by the same `normalizeSyncCase`, so the checks and the merge by vector
 * clock are the same whatever form a case came in. Pure; no I/O.
 *
 * A V3 case: `key`, `uuid`; `label`, `deleted`, `verified` only when set; `partialSave`
 * `{mode, name, levelKey?, occurrences?}` (the field reference flattened into it); `caseNote`
 * when not blank; `notes` `[{text, modifiedTime?, operatorId?, name, levelKey?, occurrences?}]`
 * with `occurrences` `{record, item, subitem}`; the first level's object under that level's
 * dictionary name; `clock` `[{deviceId, revision}]`. An incoming `position` (the data source's
 * case position) is accepted and ignored.
 */

import type { Dictionary } from '../cspro/dictionary/model.js';
import type { ErrorDetails } from '../shared/errors.js';
import { caseError, withCaseDetails } from '../cspro/case/case-result.js';
import { normalizeSyncCase, type NormalizedCase, type SyncJsonSource } from '../cspro/case/sync-json.js';
import type { CaseNote, ClockEntry, FieldRef, LevelObject, PartialSave } from '../cspro/case/model.js';
import { modelLevel, v3Level } from './case-json-v3-level.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What writing a V3 case needs: a stored case (`StoredCase` fits) or any object of this shape.
 * `data` is the first level as the model holds it, as JSON text (as stored) or as an object.
 */
export interface V3CaseSource {
  guid: string;
  caseKey: string;
  label: string;
  data: string | LevelObject;
  verified: boolean;
  deleted: boolean;
  clock: readonly ClockEntry[];
  partialSave: PartialSave | null;
  notes: readonly CaseNote[];
  caseNote?: string | null;
}

/** A field reference, flattened into `out` as V3 writes it: `name`, `levelKey` when set, `occurrences` when any is. */
function writeRef(ref: FieldRef, out: Json): void {
  out.name = ref.name;
  if (ref.levelKey !== '') out.levelKey = ref.levelKey;
  if (ref.recordOccurrence !== 0 || ref.itemOccurrence !== 0 || ref.subitemOccurrence !== 0) {
    out.occurrences = { record: ref.recordOccurrence, item: ref.itemOccurrence, subitem: ref.subitemOccurrence };
  }
}

/** One case as a V3 object, keys in the order CSPro writes them. */
export function v3CaseObject(c: V3CaseSource, dict: Dictionary): Json {
  const out: Json = { key: c.caseKey, uuid: c.guid };
  if (c.label !== '') out.label = c.label;
  if (c.deleted) out.deleted = true;
  if (c.verified) out.verified = true;
  if (c.partialSave) {
    const p: Json = { mode: c.partialSave.mode };
    if (c.partialSave.field) writeRef(c.partialSave.field, p);
    out.partialSave = p;
  }
  if (c.caseNote !== undefined && c.caseNote !== null && c.caseNote.trim() !== '') out.caseNote = c.caseNote;
  if (c.notes.length > 0) {
    out.notes = c.notes.map((n) => {
      const note: Json = { text: n.content };
      if (n.modifiedTime !== '') note.modifiedTime = n.modifiedTime;
      if (n.operatorId !== '') note.operatorId = n.operatorId;
      writeRef(n.field, note);
      return note;
    });
  }
  const level = typeof c.data === 'string' ? (JSON.parse(c.data) as LevelObject) : c.data;
  out[(dict.levels[0] ?? { name: 'LEVEL' }).name] = v3Level(level, dict);
  out.clock = c.clock.map((e) => ({ deviceId: e.deviceId, revision: e.revision }));
  return out;
}

/** The JSON text of one case in the V3 form. */
export function v3CaseJson(c: V3CaseSource, dict: Dictionary): string {
  return JSON.stringify(v3CaseObject(c, dict));
}

/** The JSON text of an array of cases in the V3 form (a sync download's body). */
export function v3CasesJson(cases: readonly V3CaseSource[], dict: Dictionary): string {
  return '[' + cases.map((c) => v3CaseJson(c, dict)).join(',') + ']';
}

/** A V3 field reference (`name`, `levelKey`, `occurrences`) → the model's, 0 for an occurrence not given. */
function readRef(raw: Json, path: string): Json {
  const occ = raw.occurrences;
  if (occ !== undefined && occ !== null && !isObject(occ)) throw caseError(`${path}.occurrences must be an object`, { path });
  const o = (occ ?? {}) as Json;
  return {
    name: raw.name,
    levelKey: raw.levelKey ?? '',
    recordOccurrence: o.record ?? 0,
    itemOccurrence: o.item ?? 0,
    subitemOccurrence: o.subitem ?? 0,
  };
}

/**
 * A V3 case object → the older sync format's raw shape (not yet checked): what normalizeSyncCase
 * reads. Throws CASE_INVALID for a shape that cannot be translated.
 */
function toSyncShape(raw: Json, dict: Dictionary): Json {
  const uuid = typeof raw.uuid === 'string' ? raw.uuid.toLowerCase() : raw.uuid;
  const out: Json = { id: uuid, clock: raw.clock ?? [] };
  if (raw.key !== undefined) out.caseids = raw.key;
  for (const k of ['label', 'deleted', 'verified', 'caseNote'] as const) if (raw[k] !== undefined) out[k] = raw[k];
  const p = raw.partialSave;
  if (p !== undefined && p !== null) {
    if (!isObject(p)) throw caseError('partialSave must be an object', { path: 'partialSave' });
    // CSPro writes mode "none" for a case that is not partial; the model has no partial save then.
    if (p.mode !== 'none') {
      out.partialSave =
        typeof p.name === 'string' && p.name.trim() !== '' ? { mode: p.mode, field: readRef(p, 'partialSave') } : { mode: p.mode };
    }
  }
  if (raw.notes !== undefined && raw.notes !== null) {
    if (!Array.isArray(raw.notes)) throw caseError('notes must be an array', { path: 'notes' });
    out.notes = raw.notes.map((n, k) => {
      const path = `notes[${k}]`;
      if (!isObject(n)) throw caseError(`${path} must be an object`, { path });
      return {
        content: n.text ?? n.content,
        field: readRef(n, path),
        operatorId: n.operatorId ?? '',
        modifiedTime: n.modifiedTime ?? '',
      };
    });
  }
  const first = dict.levels[0];
  const level = first ? raw[first.name] : undefined;
  out['level-1'] = level === undefined || level === null ? { id: {} } : modelLevel(level, dict, typeof uuid === 'string' ? uuid : '');
  return out;
}

/** True when a case object is in the V3 form (`uuid`, no `id`): how an upload of either form is told apart. */
export function isV3Case(raw: unknown): boolean {
  return isObject(raw) && raw.uuid !== undefined && raw.id === undefined;
}

/**
 * Normalises one case uploaded in the V3 form: translated (see the file comment), then checked
 * and canonicalised by normalizeSyncCase, so the result and its errors (CASE_INVALID with the case
 * id, JSON path, record and item) are those of the older format. A case in the older form is
 * passed to normalizeSyncCase as it is.
 */
export function normalizeV3Case(raw: unknown, dict: Dictionary, source: SyncJsonSource = {}): NormalizedCase {
  if (!isV3Case(raw)) return normalizeSyncCase(raw, dict, source);
  let shaped: Json;
  try {
    shaped = toSyncShape(raw as Json, dict);
  } catch (err) {
    const where: ErrorDetails = {};
    if (source.file !== undefined) where.file = source.file;
    if (source.index !== undefined) where.index = source.index;
    if (typeof (raw as Json).uuid === 'string') where.id = ((raw as Json).uuid as string).toLowerCase();
    throw withCaseDetails(err, where);
  }
  return normalizeSyncCase(shaped, dict, source);
}
