/**
 * One sync-JSON case object, as the data-collection client uploads it (docs/cspro-formats.md#the-case-model), → the
 * canonical `SyncCase`. Accepts `level-1` as a JSON string (CSPro ≥ 7.5 stringifies it) or as an
 * object, and the pre-7.5 `data` array of text lines (read with text-to-case). The level tree is
 * rebuilt against the dictionary, so stored cases always have the canonical shape: keys in
 * dictionary order, blanks omitted, repeating items trimmed, specials mapped.
 *
 * Like CSPro's parser: unknown record and item keys are ignored; records beyond maxOccurrences
 * are dropped (with a warning here). Refused (CASE_INVALID, details: case id, record, item,
 * path): a missing or malformed `id`/`clock`, `level-1` that is not an object or valid JSON, a
 * record that is not an object, and a numeric item given as a string that is neither a number
 * nor a special name.
 */

import type { DictItem, DictLevel, Dictionary } from '../dictionary/model.js';
import type { ErrorDetails } from '../../shared/errors.js';
import { caseError, withCaseDetails, type CaseWarning } from './case-result.js';
import { caseKeyOf } from './case-key.js';
import { isUuid } from './case-guid.js';
import { foldOccurrences, isBinaryItem, itemSlots, NEEDS_CHECK, normalizeScalar, plainScalar, type ItemSlot } from './item-codec.js';
import { normalizeBinaryValue } from './binary-descriptor.js';
import {
  levelKey,
  type CaseNote,
  type ClockEntry,
  type FieldRef,
  type ItemValue,
  type LevelObject,
  type PartialSave,
  type RecordObject,
  type ScalarValue,
  type SyncCase,
} from './model.js';
import { textToCase } from './text-to-case.js';
import { AppError } from '../../shared/errors.js';
import { jsonDepthExceeded } from '../../shared/json-depth.js';
import { caseTooLarge, DEFAULT_CASE_LIMITS, type CaseLimits } from './case-limits.js';

/** Where the case came from, added to error details. */
export interface SyncJsonSource {
  file?: string;
  /** 0-based index of the case in its JSON array. */
  index?: number;
  /**
   * The limits checked before the costly steps (default DEFAULT_CASE_LIMITS; docs/limits.md): the
   * nesting and length of a `level-1` JSON text before it is parsed, the number of notes and
   * clock entries before they are read. The caller checks the stored form (case-limits.ts).
   */
  limits?: CaseLimits;
}

/** A normalised case and the warnings met on the way. */
export interface NormalizedCase {
  case: SyncCase;
  warnings: CaseWarning[];
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** How a record's items are read: its slots, each slot's position by item name, its binary items. */
interface RecordPlan {
  slots: readonly ItemSlot[];
  /** Undefined when two slots share a name: the record is then read slot by slot. */
  index: Map<string, number> | undefined;
  binary: readonly DictItem[];
}

const plans = new WeakMap<readonly DictItem[], RecordPlan>();

function recordPlan(items: readonly DictItem[]): RecordPlan {
  let plan = plans.get(items);
  if (plan) return plan;
  const slots = itemSlots(items);
  let index: Map<string, number> | undefined = new Map(slots.map((slot, k) => [slot.item.name, k]));
  if (index.size < slots.length) index = undefined;
  plan = { slots, index, binary: items.filter(isBinaryItem) };
  plans.set(items, plan);
  return plan;
}

/** Walks a level object: holds the case-wide warning list and the JSON path for messages. */
class LevelNormalizer {
  readonly warnings: CaseWarning[] = [];

  constructor(private readonly dict: Dictionary) {}

  /** Normalises one item of a record object; `path` is the record's JSON path. */
  item(item: DictItem, occurrences: number, raw: unknown, path: string, record: string): ItemValue | undefined {
    // Most items do not repeat and arrive as one value: no paths, closures or arrays to build.
    if (occurrences <= 1 && !Array.isArray(raw)) {
      if (raw === undefined || raw === null || raw === '') return undefined;
      const plain = plainScalar(item, raw);
      if (plain !== NEEDS_CHECK) return plain;
      const check = normalizeScalar(item, raw);
      if (check.ok && check.truncated === undefined && check.tooWide === undefined) return check.value;
    }
    const itemPath = `${path}.${item.name}`;
    const fail = (reason: string): never => {
      throw caseError(`${itemPath}: ${reason}`, { path: itemPath, record, item: item.name });
    };
    const repeating = occurrences > 1;
    let rawValues: unknown[];
    if (Array.isArray(raw)) {
      if (!repeating) fail('expects a single value, got an array');
      rawValues = raw;
      if (raw.length > occurrences) {
        this.warnings.push({
          kind: 'too-many-occurrences',
          message: `${itemPath} has ${raw.length} occurrences, the item ${occurrences}; the extra ones are dropped`,
          record,
          item: item.name,
        });
        rawValues = raw.slice(0, occurrences);
      }
    } else {
      rawValues = [raw];
    }
    const values: (ScalarValue | undefined)[] = [];
    for (const rawValue of rawValues) {
      // Inside an occurrence array, "" marks a blank occurrence for every content type.
      const check = normalizeScalar(item, rawValue === '' ? undefined : rawValue);
      if (!check.ok) fail(check.reason);
      else {
        if (check.truncated) {
          this.warnings.push({
            kind: 'value-truncated',
            message: `${itemPath} is longer than ${item.length} characters; cut`,
            record,
            item: item.name,
            value: String(rawValue),
          });
        }
        if (check.tooWide) {
          this.warnings.push({
            kind: 'value-too-wide',
            message: `${itemPath} = ${check.value} does not fit in ${item.length} columns`,
            record,
            item: item.name,
            value: String(rawValue),
          });
        }
        values.push(check.value);
      }
    }
    return foldOccurrences(values, repeating);
  }

  /** Normalises a record object (or a level's `id` object) against its items. */
  record(items: readonly DictItem[], raw: unknown, path: string, record: string): RecordObject {
    if (!isObject(raw)) throw caseError(`${path} must be an object`, { path, record });
    const plan = recordPlan(items);
    const out = this.carried(plan, raw, path, record) ?? this.everySlot(plan, raw, path, record);
    // Binary items keep their descriptor; their content is stored apart (docs/sync.md#binary-items).
    for (const item of plan.binary) {
      const raw1 = raw[item.name];
      if (raw1 === undefined) continue;
      const check = normalizeBinaryValue(raw1, Math.max(1, item.occurrences));
      const itemPath = `${path}.${item.name}`;
      if (!check.ok) throw caseError(`${itemPath}: ${check.reason}`, { path: itemPath, record, item: item.name });
      if (check.value !== undefined) out[item.name] = check.value;
    }
    return out;
  }

  /**
   * The record's items read from the keys it carries, when they come in dictionary order (as
   * the data-collection client writes them): a record of a large dictionary holds a few of its
   * items. Undefined when a key comes out of order or an item is refused; `everySlot` then
   * reads the record again, so the output, its warnings and the first problem named are those
   * of the dictionary's order.
   */
  private carried(plan: RecordPlan, raw: Json, path: string, record: string): RecordObject | undefined {
    if (!plan.index) return undefined;
    const mark = this.warnings.length;
    const out: RecordObject = {};
    let last = -1;
    try {
      for (const key in raw) {
        const k = plan.index.get(key);
        if (k === undefined) continue;
        if (k < last) {
          this.warnings.length = mark;
          return undefined;
        }
        last = k;
        const slot = plan.slots[k]!;
        const value = this.item(slot.item, slot.occurrences, raw[key], path, record);
        if (value !== undefined) out[key] = value;
      }
    } catch {
      this.warnings.length = mark;
      return undefined;
    }
    return out;
  }

  /** The record's items read slot by slot in dictionary order, each looked up in the record. */
  private everySlot(plan: RecordPlan, raw: Json, path: string, record: string): RecordObject {
    const out: RecordObject = {};
    for (const slot of plan.slots) {
      const value = this.item(slot.item, slot.occurrences, raw[slot.item.name], path, record);
      if (value !== undefined) out[slot.item.name] = value;
    }
    return out;
  }

  /** Normalises a level object of dictionary level `depth` (0 = level 1). */
  level(raw: unknown, depth: number, path: string): LevelObject {
    const level = this.dict.levels[depth] as DictLevel;
    if (!isObject(raw)) throw caseError(`${path} must be an object`, { path });
    const out: LevelObject = { id: this.record(level.ids, raw.id ?? {}, `${path}.id`, 'id') };
    for (const record of level.records) {
      const value = raw[record.name];
      if (value === undefined || value === null) continue;
      let occurrences = Array.isArray(value) ? value : [value];
      if (occurrences.length > record.maxOccurrences) {
        this.warnings.push({
          kind: 'too-many-records',
          message: `${path}.${record.name} has ${occurrences.length} occurrences, more than ${record.maxOccurrences}; the extra ones are dropped`,
          record: record.name,
        });
        occurrences = occurrences.slice(0, record.maxOccurrences);
      }
      const objects = occurrences.map((occ, k) =>
        this.record(record.items, occ, Array.isArray(value) ? `${path}.${record.name}[${k}]` : `${path}.${record.name}`, record.name),
      );
      if (objects.length === 0) continue;
      out[record.name] = record.maxOccurrences > 1 ? objects : (objects[0] as RecordObject);
    }
    const child = this.dict.levels[depth + 1];
    if (child) {
      const key = levelKey(depth + 2);
      // The sync format names child levels `level-N`; CSPro's newer case JSON uses the level name.
      const children = raw[key] ?? raw[child.name];
      if (children !== undefined && children !== null) {
        if (!Array.isArray(children)) throw caseError(`${path}.${key} must be an array`, { path: `${path}.${key}` });
        const nodes = children.map((c, k) => this.level(c, depth + 1, `${path}.${key}[${k}]`));
        if (nodes.length > 0) out[key] = nodes;
      }
    }
    return out;
  }
}

function fieldRef(raw: unknown, path: string): FieldRef {
  if (!isObject(raw) || typeof raw.name !== 'string') throw caseError(`${path} must be an object with a name`, { path });
  const occ = (key: string): number => {
    const v = raw[key] ?? 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      throw caseError(`${path}.${key} must be a whole number ≥ 0`, { path: `${path}.${key}` });
    return v;
  };
  const levelKeyValue = raw.levelKey ?? '';
  if (typeof levelKeyValue !== 'string') throw caseError(`${path}.levelKey must be a string`, { path: `${path}.levelKey` });
  return {
    name: raw.name,
    levelKey: levelKeyValue,
    recordOccurrence: occ('recordOccurrence'),
    itemOccurrence: occ('itemOccurrence'),
    subitemOccurrence: occ('subitemOccurrence'),
  };
}

function clockOf(raw: unknown): ClockEntry[] {
  if (!Array.isArray(raw)) throw caseError('clock must be an array of {deviceId, revision}', { path: 'clock' });
  return raw.map((entry, k) => {
    const path = `clock[${k}]`;
    if (!isObject(entry) || typeof entry.deviceId !== 'string') throw caseError(`${path}.deviceId must be a string`, { path });
    const { revision } = entry;
    // A safe integer only: past 2^53 - 1 a number is no longer exact, so 2^53 + 1 would be read as
    // 2^53 and 1e308 would outrank every real clock (docs/sync.md#upload-post-cases).
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
      throw caseError(`${path}.revision must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${shown(revision)}`, {
        path: `${path}.revision`,
      });
    }
    return { deviceId: entry.deviceId, revision };
  });
}

/** A refused JSON value as a message shows it: short, whatever was sent. */
function shown(v: unknown): string {
  const text = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function notesOf(raw: unknown): CaseNote[] {
  if (!Array.isArray(raw)) throw caseError('notes must be an array', { path: 'notes' });
  return raw.map((note, k) => {
    const path = `notes[${k}]`;
    if (!isObject(note)) throw caseError(`${path} must be an object`, { path });
    // CSPro's newer case JSON calls the note text `text`; the sync format calls it `content`.
    const content = note.content ?? note.text;
    if (typeof content !== 'string') throw caseError(`${path}.content must be a string`, { path });
    const operatorId = note.operatorId ?? '';
    const modifiedTime = note.modifiedTime ?? '';
    if (typeof operatorId !== 'string' || typeof modifiedTime !== 'string') {
      throw caseError(`${path}.operatorId and modifiedTime must be strings`, { path });
    }
    // Older notes carry the field reference flat in the note object.
    const field = fieldRef(isObject(note.field) ? note.field : note, `${path}.field`);
    return { content, field, operatorId, modifiedTime };
  });
}

function partialSaveOf(raw: unknown): PartialSave {
  if (!isObject(raw) || (raw.mode !== 'add' && raw.mode !== 'modify' && raw.mode !== 'verify')) {
    throw caseError('partialSave.mode must be add, modify or verify', { path: 'partialSave.mode' });
  }
  const field = raw.field ?? (typeof raw.name === 'string' ? raw : undefined);
  return field === undefined ? { mode: raw.mode } : { mode: raw.mode, field: fieldRef(field, 'partialSave.field') };
}

function optionalBoolean(raw: Json, key: 'deleted' | 'verified'): boolean | undefined {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw caseError(`${key} must be true or false`, { path: key });
  return v;
}

/**
 * Normalises one uploaded case (see the file comment). Throws CASE_INVALID with the case id (when
 * readable), the JSON path, record and item in the details, plus `file`/`index` from `source`.
 */
export function normalizeSyncCase(raw: unknown, dict: Dictionary, source: SyncJsonSource = {}): NormalizedCase {
  const where: ErrorDetails = {};
  if (source.file !== undefined) where.file = source.file;
  if (source.index !== undefined) where.index = source.index;
  try {
    if (!isObject(raw)) throw caseError('a case must be a JSON object');
    if (!isUuid(raw.id)) throw caseError('id must be a GUID (8-4-4-4-12 hex digits)', { path: 'id' });
    const id = raw.id.toLowerCase();
    where.id = id;
    const limits = source.limits ?? DEFAULT_CASE_LIMITS;
    try {
      // Counts and lengths first: nothing large is read or parsed before it is refused.
      const named = { guid: id, caseKey: typeof raw.caseids === 'string' ? raw.caseids : '' };
      const early = (field: string, v: unknown, limit: number, unit: string) => {
        const n = typeof v === 'string' || Array.isArray(v) ? v.length : 0;
        if (n > limit) throw caseTooLarge(named, field, n, limit, unit, limits);
      };
      early('clock', raw.clock, limits.clockEntries, 'entries');
      early('notes', raw.notes, limits.notes, 'notes');
      early('level-1', raw['level-1'], limits.dataChars, 'characters');
      const clock = clockOf(raw.clock);
      const normalizer = new LevelNormalizer(dict);
      let level1: LevelObject;
      const rawLevel = raw['level-1'];
      if (rawLevel !== undefined && rawLevel !== null) {
        let parsed: unknown = rawLevel;
        if (typeof rawLevel === 'string') {
          // Refused before parsing: JSON.parse of deep input costs memory out of all proportion.
          const depth = limits.jsonDepth;
          const at = jsonDepthExceeded(rawLevel, depth);
          if (at >= 0) {
            throw new AppError('JSON_TOO_DEEP', `level-1 nests arrays and objects deeper than the limit of ${depth} (at character ${at})`, {
              path: 'level-1',
              field: 'level-1',
              limit: depth,
            });
          }
          try {
            parsed = JSON.parse(rawLevel);
          } catch (err) {
            throw caseError(`level-1 is not valid JSON: ${(err as Error).message}`, { path: 'level-1' });
          }
        }
        level1 = normalizer.level(parsed, 0, 'level-1');
      } else if (Array.isArray(raw.data)) {
        if (!raw.data.every((l): l is string => typeof l === 'string'))
          throw caseError('data must be an array of text lines', { path: 'data' });
        const text = textToCase(dict, raw.data);
        level1 = text.level1;
        normalizer.warnings.push(...text.warnings);
      } else {
        throw caseError('the case has neither level-1 nor data', { path: 'level-1' });
      }

      if (raw.caseids !== undefined && typeof raw.caseids !== 'string') throw caseError('caseids must be a string', { path: 'caseids' });
      // Keep caseids exactly as the client sent it: the server filters downloads by its prefix.
      const caseids = typeof raw.caseids === 'string' ? raw.caseids : caseKeyOf(dict, level1);
      const out: SyncCase = { id, caseids, clock, 'level-1': level1 };
      if (typeof raw.label === 'string' && raw.label !== '') out.label = raw.label;
      else if (raw.label !== undefined && raw.label !== null && typeof raw.label !== 'string')
        throw caseError('label must be a string', { path: 'label' });
      if (optionalBoolean(raw, 'deleted')) out.deleted = true;
      if (optionalBoolean(raw, 'verified')) out.verified = true;
      if (raw.notes !== undefined && raw.notes !== null) {
        const notes = notesOf(raw.notes);
        if (notes.length > 0) out.notes = notes;
      }
      if (raw.partialSave !== undefined && raw.partialSave !== null) out.partialSave = partialSaveOf(raw.partialSave);
      if (typeof raw.caseNote === 'string' && raw.caseNote.trim() !== '') out.caseNote = raw.caseNote;
      else if (raw.caseNote !== undefined && raw.caseNote !== null && typeof raw.caseNote !== 'string')
        throw caseError('caseNote must be a string', { path: 'caseNote' });
      return { case: reorder(out), warnings: normalizer.warnings };
    } catch (err) {
      // An error names the case by its key; an absurd key is cut so the error stays small.
      if (typeof raw.caseids === 'string') where.case = raw.caseids.length > 80 ? `${raw.caseids.slice(0, 40)}…` : raw.caseids;
      throw err;
    }
  } catch (err) {
    throw withCaseDetails(err, where);
  }
}

/** Puts the keys in the order of the sync format, so stored JSON reads naturally. */
function reorder(c: SyncCase): SyncCase {
  // Assigned one by one, not spread: this runs for every uploaded case.
  const out: SyncCase = { id: c.id, caseids: c.caseids } as SyncCase;
  if (c.label !== undefined) out.label = c.label;
  if (c.deleted) out.deleted = true;
  if (c.verified) out.verified = true;
  if (c.notes) out.notes = c.notes;
  out.clock = c.clock;
  if (c.partialSave) out.partialSave = c.partialSave;
  if (c.caseNote !== undefined) out.caseNote = c.caseNote;
  out['level-1'] = c['level-1'];
  return out;
}
