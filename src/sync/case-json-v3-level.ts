/**
 * A case level between the case model and CSPro 8.1's case JSON ("V3", docs/sync.md#v3-case-json),
 * both ways. Pure; the dictionary names the levels and tells binary items from the others.
 *
 * Model → V3: the `id` object's items go straight into the level object; every record is an
 * array of occurrence objects; `level-N` children become an array under the child level's name;
 * each item value becomes `{"code": v}`, a repeating item an array of those with `{}` for a
 * blank occurrence inside; a binary descriptor becomes `{metadata, signature, size}`.
 *
 * V3 → model: the reverse, into the shape `normalizeSyncCase` reads (`id`, records, `level-N`),
 * which then checks every value against the dictionary as it does for the older sync format.
 */

import type { DictItem, DictLevel, Dictionary } from '../cspro/dictionary/model.js';
import { isBinaryItem } from '../cspro/case/item-codec.js';
import { caseError } from '../cspro/case/case-result.js';
import { levelKey, type LevelObject, type RecordObject } from '../cspro/case/model.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One model value (a scalar, `""` for a blank occurrence, or a binary descriptor) as a V3 item object. */
function v3Item(value: unknown): Json {
  if (value === '' || value === undefined || value === null) return {};
  if (isObject(value)) {
    const out: Json = {};
    if (value.metadata !== undefined) out.metadata = value.metadata;
    out.signature = value.signature;
    const size = value.length ?? value.size;
    if (size !== undefined) out.size = size;
    return out;
  }
  return { code: value };
}

/** A model record object (or a level's `id` object) → the V3 items, added to `out`. */
function v3Items(record: RecordObject, out: Json): void {
  for (const [name, value] of Object.entries(record)) {
    out[name] = Array.isArray(value) ? value.map(v3Item) : v3Item(value);
  }
}

/** A model level object of dictionary level `depth` (0 = the first) → the V3 level object. */
export function v3Level(level: LevelObject, dict: Dictionary, depth = 0): Json {
  const out: Json = {};
  v3Items(level.id, out);
  const childKey = levelKey(depth + 2);
  for (const [key, value] of Object.entries(level)) {
    if (key === 'id') continue;
    if (key === childKey) {
      const child = dict.levels[depth + 1];
      if (!child) continue;
      out[child.name] = (value as LevelObject[]).map((c) => v3Level(c, dict, depth + 1));
      continue;
    }
    const occurrences = (Array.isArray(value) ? value : [value]) as RecordObject[];
    out[key] = occurrences.map((occ) => {
      const o: Json = {};
      v3Items(occ, o);
      return o;
    });
  }
  return out;
}

/** One V3 item object → the model's raw value (checked later by normalizeSyncCase). */
function modelValue(raw: unknown, item: DictItem | undefined, caseUuid: string, path: string): unknown {
  if (!isObject(raw)) {
    // CSPro writes `{"code": v}`; a bare value is read as that value rather than refused.
    return raw;
  }
  if (item && isBinaryItem(item)) {
    if (raw.signature === undefined || raw.signature === null || raw.signature === '') return '';
    // Stored in the older sync format's descriptor shape, which 8.0 clients read back.
    const d: Json = {};
    if (raw.metadata !== undefined) d.metadata = raw.metadata;
    d.caseid = caseUuid;
    d.signature = raw.signature;
    const size = raw.size ?? raw.length;
    if (size !== undefined) d.length = size;
    return d;
  }
  if (!('code' in raw)) return '';
  const code = raw.code;
  if (code !== null && typeof code === 'object') throw caseError(`${path}.code must be a number or a text`, { path: `${path}.code` });
  return code ?? '';
}

/** A V3 record occurrence (or a V3 level object, for its id items) → a model record object. */
function modelRecord(raw: Json, items: readonly DictItem[], caseUuid: string, path: string): Json {
  const out: Json = {};
  for (const item of items) {
    const value = raw[item.name];
    if (value === undefined) continue;
    const itemPath = `${path}.${item.name}`;
    out[item.name] = Array.isArray(value)
      ? value.map((v, k) => modelValue(v, item, caseUuid, `${itemPath}[${k}]`))
      : modelValue(value, item, caseUuid, itemPath);
  }
  return out;
}

/**
 * A V3 level object of dictionary level `depth` → a level object in the shape normalizeSyncCase
 * reads. Keys the dictionary does not know are dropped, as CSPro's parser ignores them.
 */
export function modelLevel(raw: unknown, dict: Dictionary, caseUuid: string, depth = 0, path?: string): Json {
  const level = dict.levels[depth] as DictLevel;
  const at = path ?? level.name;
  if (!isObject(raw)) throw caseError(`${at} must be an object`, { path: at });
  const out: Json = { id: modelRecord(raw, level.ids, caseUuid, at) };
  for (const record of level.records) {
    const value = raw[record.name];
    if (value === undefined || value === null) continue;
    const occurrences = Array.isArray(value) ? value : [value];
    out[record.name] = occurrences.map((occ, k) => {
      const occPath = `${at}.${record.name}[${k}]`;
      if (!isObject(occ)) throw caseError(`${occPath} must be an object`, { path: occPath, record: record.name });
      return modelRecord(occ, record.items, caseUuid, occPath);
    });
  }
  const child = dict.levels[depth + 1];
  if (child) {
    const children = raw[child.name];
    if (children !== undefined && children !== null) {
      const childPath = `${at}.${child.name}`;
      if (!Array.isArray(children)) throw caseError(`${childPath} must be an array`, { path: childPath });
      out[levelKey(depth + 2)] = children.map((c, k) => modelLevel(c, dict, caseUuid, depth + 1, `${childPath}[${k}]`));
    }
  }
  return out;
}
