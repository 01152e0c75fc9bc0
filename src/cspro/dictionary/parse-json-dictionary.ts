/**
 * Reader for the CSPro 8 JSON `.dcf` form (docs/cspro-formats.md#json-dictionaries), following what CSPro's
 * CreateFromJson methods require and default, not CSWeb's JsonDictionaryParser.
 * Record-item starts omitted by relative dictionaries are computed here (docs/cspro-formats.md#column-layout); the
 * multi-level adjustment, record lengths and validation are run by parseDictionary.
 */

import { dictInvalid, type Locate, type SourceSpot } from './dict-error.js';
import { JsonSyntaxError, parseJsonText } from './json-syntax.js';
import { mapJsonLabels, type JsonLabel } from './labels.js';
import { idRecordLength, placeRecordItems, type PendingStart } from './layout.js';
import type {
  Dictionary,
  DictItem,
  DictLevel,
  DictRecord,
  DictValue,
  Language,
  OccurrenceLabel,
  Relation,
  RelationLink,
  ValuePair,
  ValueSet,
} from './model.js';
import { normalizeItem, tidyOccurrenceLabels, toContentType, toSpecialName } from './normalize-item.js';

/** A CSPro name (CIMSAString::IsName), in either case: what CSPro accepts as a syncable name. */
const SYNCABLE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A parsed JSON dictionary before the shared layout and validation passes. */
export interface ParsedJsonDictionary {
  dict: Dictionary;
  locate: Locate;
}

type JsonObject = Record<string, unknown>;

// Model field -> JSON property path, for pointing validation errors at the right property.
const FIELD_PATHS: Record<string, string> = {
  maxOccurrences: 'occurrences.maximum',
  occurrences: 'occurrences.maximum',
  recordTypeStart: 'recordType.start',
  recordTypeLength: 'recordType.length',
};

/** Parses the text of a JSON dictionary into the model, with starts of relative record items placed. */
export function parseJsonDictionary(text: string): ParsedJsonDictionary {
  let root: unknown;
  try {
    root = parseJsonText(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw dictInvalid({}, `JSON syntax error at line ${err.line}, column ${err.column}: ${err.reason}`, {
        line: err.line,
        column: err.column,
      });
    }
    throw err;
  }
  return new JsonDictionaryReader().read(root);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

class JsonDictionaryReader {
  private readonly spots = new Map<object, { path: string; present: Set<string> }>();
  private languages: Language[] = [];

  read(root: unknown): ParsedJsonDictionary {
    const o = this.object(root, '', 'the dictionary');
    const fileType = o.fileType;
    if (fileType !== 'dictionary') {
      this.fail('fileType', `must be "dictionary", got ${show(fileType)} (is this a CSPro dictionary?)`);
    }
    this.languages = this.optArray(o, '', 'languages').map((v, i) => {
      const p = join('languages', i);
      const l = this.object(v, p, 'a language');
      return { name: this.str(l, p, 'name'), label: this.optStr(l, p, 'label') ?? '' };
    });
    if (o.recordType === undefined) this.fail('recordType', 'is required');
    const rt = this.object(o.recordType, 'recordType', 'the record type');
    const defaults = o.defaults === undefined ? {} : this.object(o.defaults, 'defaults', 'the defaults');
    const relative = this.bool(o, '', 'relativePositions');
    const version = o.version;
    const dict: Dictionary = {
      ...this.named(o, ''),
      version:
        typeof version === 'number'
          ? Number.isInteger(version)
            ? version.toFixed(1)
            : String(version)
          : typeof version === 'string'
            ? version
            : '',
      languages: this.languages,
      recordType: { start: this.int(rt, 'recordType', 'start', 0), length: this.int(rt, 'recordType', 'length', 0) },
      relativePositions: relative,
      defaults: {
        zeroFill: this.optBool(defaults, 'defaults', 'zeroFill') ?? false,
        decimalMark: this.optBool(defaults, 'defaults', 'decimalMark') ?? false,
      },
      editable: this.optBool(o, '', 'editable') ?? true,
      levels: [],
      relations: [],
    };
    const syncableName = this.syncableName(o, dict.name);
    if (syncableName !== undefined) dict.syncableName = syncableName;
    this.remember(dict, '', o);
    if (o.levels === undefined) this.fail('levels', 'is required');
    const levels = this.array(o.levels, 'levels');
    levels.forEach((v, i) => dict.levels.push(this.level(v, join('levels', i), dict)));
    dict.relations = this.optArray(o, '', 'relations').map((v, i) => this.relation(v, join('relations', i)));
    return { dict, locate: (entity, field) => this.locate(entity, field) };
  }

  private locate(entity: object, field?: string): SourceSpot {
    const spot = this.spots.get(entity);
    if (spot === undefined) return {};
    if (field === undefined) return { path: spot.path };
    const rel = FIELD_PATHS[field] ?? field;
    const head = rel.split('.')[0] ?? rel;
    return { path: spot.present.has(head) ? join(spot.path, rel) : spot.path };
  }

  private remember(entity: object, path: string, source: JsonObject): void {
    this.spots.set(entity, { path, present: new Set(Object.keys(source)) });
  }

  private level(value: unknown, path: string, dict: Dictionary): DictLevel {
    const o = this.object(value, path, 'a level');
    const idsPath = join(path, 'ids');
    const ids = o.ids === undefined ? {} : this.object(o.ids, idsPath, 'the id items');
    const level: DictLevel = { ...this.named(o, path), ids: [], records: [] };
    this.remember(level, path, o);
    this.optArray(ids, idsPath, 'items').forEach((v, i) => {
      const item = this.item(v, join(join(idsPath, 'items'), i), dict, true);
      level.ids.push(item.item);
    });
    dict.levels.push(level);
    const firstStart = idRecordLength(dict, dict.levels.length - 1) + 1;
    dict.levels.pop();
    if (o.records === undefined) this.fail(join(path, 'records'), 'is required');
    this.array(o.records, join(path, 'records')).forEach((v, i) => {
      level.records.push(this.record(v, join(join(path, 'records'), i), dict, firstStart));
    });
    return level;
  }

  private record(value: unknown, path: string, dict: Dictionary, firstStart: number): DictRecord {
    const o = this.object(value, path, 'a record');
    const occPath = join(path, 'occurrences');
    if (o.occurrences === undefined) this.fail(occPath, 'is required');
    const occ = this.object(o.occurrences, occPath, 'the occurrences');
    const maxOccurrences = this.int(occ, occPath, 'maximum', 1);
    const recordType = o.recordType === undefined ? '' : this.str(o, path, 'recordType');
    const record: DictRecord = {
      ...this.named(o, path),
      recordType,
      required: this.bool(occ, occPath, 'required'),
      maxOccurrences,
      occurrenceLabels: tidyOccurrenceLabels(this.occurrenceLabels(occ, occPath), maxOccurrences),
      items: [],
      length: 0,
    };
    this.remember(record, path, o);
    const pending = new Map<DictItem, PendingStart>();
    this.optArray(o, path, 'items').forEach((v, i) => {
      const { item, hint } = this.item(v, join(join(path, 'items'), i), dict, false);
      record.items.push(item);
      if (hint !== undefined) pending.set(item, hint);
    });
    placeRecordItems(record.items, firstStart, pending);
    return record;
  }

  private item(value: unknown, path: string, dict: Dictionary, isId: boolean): { item: DictItem; hint?: PendingStart } {
    const o = this.object(value, path, 'an item');
    const typeText = this.str(o, path, 'contentType');
    const contentType = toContentType(typeText);
    if (contentType === undefined) {
      this.fail(join(path, 'contentType'), `must be one of numeric, alpha, image, audio, document, geometry, got ${show(typeText)}`);
    }
    const occPath = join(path, 'occurrences');
    const occ = o.occurrences === undefined ? undefined : this.object(o.occurrences, occPath, 'the occurrences');
    const occurrences = occ === undefined ? 1 : this.int(occ, occPath, 'maximum', 1);
    const subitem = this.optBool(o, path, 'subitem') ?? false;
    const decimals = contentType === 'numeric' ? (this.optInt(o, path, 'decimals', 0) ?? 0) : 0;
    const binary = contentType !== 'numeric' && contentType !== 'alpha';
    const item: DictItem = {
      ...this.named(o, path),
      start: 0,
      length: binary ? 1 : this.int(o, path, 'length', 1),
      contentType,
      subitem: binary ? false : subitem,
      occurrences,
      occurrenceLabels: occ === undefined ? [] : tidyOccurrenceLabels(this.occurrenceLabels(occ, occPath), occurrences),
      decimals,
      // CSPro requires decimalMark whenever there are decimals
      decimalMark: contentType === 'numeric' && decimals > 0 ? this.bool(o, path, 'decimalMark') : false,
      zeroFill: contentType === 'numeric' ? (this.optBool(o, path, 'zeroFill') ?? dict.defaults.zeroFill) : false,
      valueSets: this.optArray(o, path, 'valueSets').map((v, i) => this.valueSet(v, join(join(path, 'valueSets'), i))),
    };
    normalizeItem(item);
    this.remember(item, path, o);
    let hint: PendingStart | undefined;
    if (o.start !== undefined || isId || !dict.relativePositions) {
      if (o.start === undefined) {
        this.fail(join(path, 'start'), isId ? 'is required for id items' : 'is required when relativePositions is false');
      }
      item.start = this.int(o, path, 'start', 1);
    } else if (item.subitem) {
      if (o.subitemOffset === undefined) this.fail(join(path, 'subitemOffset'), 'is required for a subitem without start');
      hint = { subitemOffset: this.int(o, path, 'subitemOffset', 0) };
    } else {
      hint = {};
    }
    return hint === undefined ? { item } : { item, hint };
  }

  private valueSet(value: unknown, path: string): ValueSet {
    const o = this.object(value, path, 'a value set');
    const link = this.optStr(o, path, 'link');
    const vs: ValueSet = {
      name: this.name(o, path),
      labels: this.labels(o, path),
      values: this.optArray(o, path, 'values').map((v, i) => this.value(v, join(join(path, 'values'), i))),
    };
    if (link !== undefined && link !== '') vs.link = link;
    this.remember(vs, path, o);
    return vs;
  }

  private value(value: unknown, path: string): DictValue {
    const o = this.object(value, path, 'a value');
    const v: DictValue = {
      labels: this.labels(o, path),
      pairs: this.optArray(o, path, 'pairs').map((p, i) => this.pair(p, join(join(path, 'pairs'), i))),
    };
    const special = this.optStr(o, path, 'special');
    if (special !== undefined) {
      const name = toSpecialName(special);
      if (name === undefined) this.fail(join(path, 'special'), `must be one of MISSING, NOTAPPL, DEFAULT, REFUSED, got ${show(special)}`);
      v.special = name;
    }
    const note = this.optStr(o, path, 'note');
    if (note !== undefined && note.trim() !== '') v.note = note.trim();
    const image = this.optStr(o, path, 'image');
    if (image !== undefined && image !== '') v.image = image;
    const color = this.optStr(o, path, 'textColor');
    if (color !== undefined && color !== '') v.textColor = color;
    this.remember(v, path, o);
    return v;
  }

  private pair(value: unknown, path: string): ValuePair {
    const o = this.object(value, path, 'a value pair');
    const text = (v: unknown, p: string): string => {
      if (typeof v === 'string') return v.trimEnd();
      if (typeof v === 'number') return String(v);
      return this.fail(p, `must be a string, got ${show(v)}`);
    };
    if (o.value !== undefined) return { from: text(o.value, join(path, 'value')) };
    const rangePath = join(path, 'range');
    if (o.range === undefined) this.fail(path, 'must have "value" or "range"');
    const range = this.array(o.range, rangePath);
    if (range.length !== 2) this.fail(rangePath, `must contain exactly 2 entries, not ${range.length}`);
    return { from: text(range[0], join(rangePath, 0)), to: text(range[1], join(rangePath, 1)) };
  }

  private occurrenceLabels(occ: JsonObject, path: string): OccurrenceLabel[] {
    return this.optArray(occ, path, 'labels').map((v, i) => {
      const p = join(join(path, 'labels'), i);
      const o = this.object(v, p, 'an occurrence label');
      return { occurrence: this.int(o, p, 'occurrence', 1), labels: this.labels(o, p) };
    });
  }

  private relation(value: unknown, path: string): Relation {
    const o = this.object(value, path, 'a relation');
    const links = this.optArray(o, path, 'links').map((v, i): RelationLink => {
      const p = join(join(path, 'links'), i);
      const l = this.object(v, p, 'a relation link');
      const link: RelationLink = { secondary: this.str(l, p, 'secondary').toUpperCase() };
      const primaryLink = this.optStr(l, p, 'primaryLink');
      if (primaryLink !== undefined && primaryLink !== '') link.primaryLink = primaryLink.toUpperCase();
      const secondaryLink = this.optStr(l, p, 'secondaryLink');
      if (secondaryLink !== undefined && secondaryLink !== '') link.secondaryLink = secondaryLink.toUpperCase();
      this.remember(link, p, l);
      return link;
    });
    const relation: Relation = { name: this.name(o, path), primary: this.str(o, path, 'primary').toUpperCase(), links };
    this.remember(relation, path, o);
    return relation;
  }

  /**
   * The syncable name of `"sync": {"name": …}` (CSPro 8.1), as CSPro's `SetSyncableName` keeps it:
   * trimmed, none when blank or the dictionary's own name. It goes into URLs, so it must be a CSPro
   * name (CSPro upper-cases it in its editor; a name set by hand keeps its case, as the client sends it).
   */
  private syncableName(o: JsonObject, dictionaryName: string): string | undefined {
    if (o.sync === undefined) return undefined;
    const sync = this.object(o.sync, 'sync', 'the sync settings');
    const name = this.optStr(sync, 'sync', 'name')?.trim();
    if (name === undefined || name === '' || name === dictionaryName) return undefined;
    if (!SYNCABLE_NAME.test(name)) {
      this.fail(
        'sync.name',
        `${JSON.stringify(name)} is not a valid syncable name: it must start with a letter and contain only letters, digits and _`,
      );
    }
    return name;
  }

  /** name, labels, note and aliases, common to the dictionary, levels, records and items. */
  private named(o: JsonObject, path: string): { name: string; labels: string[]; aliases: string[]; note?: string } {
    const out: { name: string; labels: string[]; aliases: string[]; note?: string } = {
      name: this.name(o, path),
      labels: this.labels(o, path),
      aliases: this.optArray(o, path, 'aliases').map((a, i) => {
        if (typeof a !== 'string') this.fail(join(join(path, 'aliases'), i), `must be a string, got ${show(a)}`);
        return a.toUpperCase();
      }),
    };
    const note = this.optStr(o, path, 'note');
    if (note !== undefined && note.trim() !== '') out.note = note.trim();
    return out;
  }

  private name(o: JsonObject, path: string): string {
    return this.str(o, path, 'name').toUpperCase();
  }

  private labels(o: JsonObject, path: string): string[] {
    const entries = this.optArray(o, path, 'labels').map((v, i): JsonLabel => {
      const p = join(join(path, 'labels'), i);
      const l = this.object(v, p, 'a label');
      const language = this.optStr(l, p, 'language');
      const text = this.optStr(l, p, 'text') ?? '';
      return language === undefined ? { text } : { text, language };
    });
    return mapJsonLabels(entries, this.languages);
  }

  // --- typed property access; every failure names the JSON path ---

  private fail(path: string, message: string): never {
    throw dictInvalid({ path }, message);
  }

  private object(value: unknown, path: string, what: string): JsonObject {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail(path, `${what} must be a JSON object, got ${show(value)}`);
    }
    return value as JsonObject;
  }

  private array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, `must be an array, got ${show(value)}`);
    return value;
  }

  private optArray(o: JsonObject, path: string, key: string): unknown[] {
    return o[key] === undefined ? [] : this.array(o[key], join(path, key));
  }

  private str(o: JsonObject, path: string, key: string): string {
    const v = o[key];
    if (v === undefined) this.fail(join(path, key), 'is required');
    if (typeof v !== 'string') this.fail(join(path, key), `must be a string, got ${show(v)}`);
    return v;
  }

  private optStr(o: JsonObject, path: string, key: string): string | undefined {
    return o[key] === undefined ? undefined : this.str(o, path, key);
  }

  private bool(o: JsonObject, path: string, key: string): boolean {
    const v = o[key];
    if (v === undefined) this.fail(join(path, key), 'is required');
    if (typeof v !== 'boolean') this.fail(join(path, key), `must be true or false, got ${show(v)}`);
    return v;
  }

  private optBool(o: JsonObject, path: string, key: string): boolean | undefined {
    return o[key] === undefined ? undefined : this.bool(o, path, key);
  }

  private int(o: JsonObject, path: string, key: string, min: number): number {
    const v = o[key];
    if (v === undefined) this.fail(join(path, key), 'is required');
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      this.fail(join(path, key), `must be a whole number ≥ ${min}, got ${show(v)}`);
    }
    return v;
  }

  private optInt(o: JsonObject, path: string, key: string, min: number): number | undefined {
    return o[key] === undefined ? undefined : this.int(o, path, key, min);
  }
}
