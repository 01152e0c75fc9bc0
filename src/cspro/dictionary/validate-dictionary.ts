/**
 * Structural checks on a parsed dictionary: what CSPro's loader or DictionaryValidator would
 * refuse, and what would make reading fixed-width lines ambiguous. Runs on the finished model
 * (after layout), the same for both forms; `locate` points each error back at its source.
 */

import type { ErrorDetails } from '../../shared/errors.js';
import { dictInvalid, type Locate } from './dict-error.js';
import { itemEnd, recordTypeEnd } from './layout.js';
import type { Dictionary, DictItem, DictLevel, DictRecord, ValueSet } from './model.js';
import { isBinary } from './normalize-item.js';

// CSPro limits (zDictO): three levels, 15 digits in a numeric item (MAX_NUMLEN).
const MAX_LEVELS = 3;
const MAX_NUMERIC_LENGTH = 15;
const NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;

/** Throws DICT_INVALID for the first structural problem found in the dictionary. */
export function validateDictionary(dict: Dictionary, locate: Locate): void {
  new Validator(dict, locate).run();
}

class Validator {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly dict: Dictionary,
    private readonly locate: Locate,
  ) {}

  private fail(entity: object, field: string | undefined, message: string, extra: ErrorDetails = {}): never {
    throw dictInvalid(this.locate(entity, field), message, extra);
  }

  run(): void {
    const d = this.dict;
    this.name(d, '[Dictionary]', d.name, d.aliases);
    const { start, length } = d.recordType;
    if ((start === 0) !== (length === 0)) {
      this.fail(
        d,
        start === 0 ? 'recordTypeStart' : 'recordTypeLength',
        `[Dictionary] ${d.name}: the record type start and length must both be 0 or both be ≥ 1, got start ${start} and length ${length}`,
      );
    }
    if (d.levels.length === 0) this.fail(d, undefined, `[Dictionary] ${d.name}: a dictionary needs at least one [Level]`);
    if (d.levels.length > MAX_LEVELS) {
      this.fail(
        d.levels[MAX_LEVELS] ?? d,
        undefined,
        `[Dictionary] ${d.name}: has ${d.levels.length} levels; CSPro allows at most ${MAX_LEVELS}`,
      );
    }
    const recordCount = d.levels.reduce((n, l) => n + l.records.length, 0);
    if (recordCount > 1 && length === 0) {
      this.fail(
        d,
        'recordTypeLength',
        `[Dictionary] ${d.name}: with ${recordCount} records the dictionary needs a record type (RecordTypeLen ≥ 1)`,
      );
    }
    const recordTypes = new Map<string, string>();
    d.levels.forEach((level, i) => this.level(level, i, recordTypes));
    for (const relation of d.relations) this.relation(relation);
  }

  private name(entity: object, tag: string, name: string, aliases: readonly string[] = []): void {
    if (!NAME_PATTERN.test(name)) {
      this.fail(entity, 'name', `${tag} ${JSON.stringify(name)}: a name must start with a letter and contain only A-Z, 0-9 and _`);
    }
    for (const n of [name, ...aliases]) {
      const previous = this.names.get(n);
      if (previous !== undefined) this.fail(entity, 'name', `${tag} ${name}: the name ${n} is already used by ${previous}`);
      this.names.set(n, `${tag} ${name}`);
    }
  }

  private level(level: DictLevel, index: number, recordTypes: Map<string, string>): void {
    this.name(level, '[Level]', level.name, level.aliases);
    if (level.ids.length === 0) this.fail(level, undefined, `[Level] ${level.name}: a level needs at least one id item`);
    if (level.records.length === 0) this.fail(level, undefined, `[Level] ${level.name}: a level needs at least one [Record]`);
    const ancestorsIds = this.dict.levels.slice(0, index).flatMap((l) => l.ids);
    this.items(level.ids, { kind: 'ids', level, occupied: ancestorsIds });
    const lineIds = [...ancestorsIds, ...level.ids];
    for (const record of level.records) {
      this.record(record, recordTypes);
      this.items(record.items, { kind: 'record', level, record, occupied: lineIds });
    }
  }

  private record(record: DictRecord, recordTypes: Map<string, string>): void {
    const tag = `[Record] ${record.name}`;
    this.name(record, '[Record]', record.name, record.aliases);
    const rtLength = this.dict.recordType.length;
    const extra = { record: record.name };
    if (record.recordType.length !== rtLength) {
      this.fail(
        record,
        'recordType',
        `${tag}: record type value ${JSON.stringify(record.recordType)} must be ${rtLength} character(s) long, the dictionary's record type length`,
        extra,
      );
    }
    if (record.recordType.startsWith('~')) {
      this.fail(record, 'recordType', `${tag}: a record type value cannot start with "~" (it marks deleted lines)`, extra);
    }
    const other = recordTypes.get(record.recordType);
    if (other !== undefined) {
      this.fail(
        record,
        'recordType',
        `${tag}: record type value ${JSON.stringify(record.recordType)} is already used by [Record] ${other}`,
        extra,
      );
    }
    recordTypes.set(record.recordType, record.name);
    if (record.maxOccurrences < 1) this.fail(record, 'maxOccurrences', `${tag}: the maximum number of records must be ≥ 1`, extra);
  }

  private items(
    items: readonly DictItem[],
    ctx: { kind: 'ids' | 'record'; level: DictLevel; record?: DictRecord; occupied: readonly DictItem[] },
  ): void {
    const placed: DictItem[] = [];
    let parent: DictItem | undefined;
    const rtEnd = recordTypeEnd(this.dict);
    const rtStart = this.dict.recordType.start;
    for (const item of items) {
      const tag = `[Item] ${item.name}`;
      const extra: ErrorDetails = { item: item.name };
      if (ctx.record) extra.record = ctx.record.name;
      const fail = (field: string | undefined, message: string): never => this.fail(item, field, `${tag}: ${message}`, extra);
      this.name(item, '[Item]', item.name, item.aliases);
      if (item.start < 1) fail('start', `the start must be ≥ 1, got ${item.start}`);
      if (item.length < 1) fail('length', `the length must be ≥ 1, got ${item.length}`);
      if (item.occurrences < 1) fail('occurrences', `occurrences must be ≥ 1, got ${item.occurrences}`);
      if (item.contentType === 'numeric' && item.length > MAX_NUMERIC_LENGTH) {
        fail('length', `a numeric item can be at most ${MAX_NUMERIC_LENGTH} characters long, got ${item.length}`);
      }
      if (item.decimals > item.length) fail('decimals', `${item.decimals} decimals do not fit in length ${item.length}`);
      if (item.decimalMark && item.decimals + 1 > item.length) {
        fail('decimals', `${item.decimals} decimals plus the decimal mark do not fit in length ${item.length}`);
      }
      if (ctx.kind === 'ids') {
        if (item.subitem) fail('subitem', 'id items cannot be subitems');
        if (item.occurrences > 1) fail('occurrences', 'id items cannot have several occurrences');
        if (item.decimals > 0) fail('decimals', 'id items cannot have decimals');
        if (isBinary(item.contentType)) fail('contentType', `id items cannot be ${item.contentType} items`);
      }
      if (item.subitem) {
        if (parent === undefined) return fail('subitem', 'a subitem must follow the item it is part of');
        if (isBinary(parent.contentType))
          fail('subitem', `the parent item ${parent.name} is a ${parent.contentType} item and cannot have subitems`);
        const parentEnd = parent.start + parent.length - 1;
        if (item.start < parent.start || itemEnd(item) > parentEnd) {
          fail(
            'start',
            `columns ${item.start}-${itemEnd(item)} are outside its parent item ${parent.name} (columns ${parent.start}-${parentEnd})`,
          );
        }
        if (item.occurrences > 1 && parent.occurrences > 1) {
          fail('occurrences', `a subitem cannot have several occurrences when its parent ${parent.name} has several`);
        }
      } else {
        parent = item;
        if (!isBinary(item.contentType)) {
          if (rtEnd > 0 && item.start <= rtEnd && itemEnd(item) >= rtStart) {
            fail('start', `columns ${item.start}-${itemEnd(item)} overlap the record type (columns ${rtStart}-${rtEnd})`);
          }
          for (const other of [...ctx.occupied, ...placed]) {
            if (item.start <= itemEnd(other) && itemEnd(item) >= other.start) {
              const what = ctx.occupied.includes(other) ? 'id item' : 'item';
              fail(
                'start',
                `columns ${item.start}-${itemEnd(item)} overlap ${what} ${other.name} (columns ${other.start}-${itemEnd(other)})`,
              );
            }
          }
          placed.push(item);
        }
      }
      item.valueSets.forEach((vs) => this.valueSet(vs, item, extra));
    }
  }

  private valueSet(vs: ValueSet, item: DictItem, extra: ErrorDetails): void {
    const tag = `[Item] ${item.name}: [ValueSet] ${vs.name}`;
    this.name(vs, '[ValueSet]', vs.name);
    for (const value of vs.values) {
      const fail = (message: string): never => this.fail(value, 'pairs', `${tag}: ${message}`, extra);
      if (value.special !== undefined) {
        if (item.contentType !== 'numeric') fail(`special value ${value.special} is only allowed for numeric items`);
        if (value.pairs.length > 1 || value.pairs.some((p) => p.to !== undefined)) {
          fail(`special value ${value.special} can have only a single value, not a range`);
        }
      }
      for (const pair of value.pairs) {
        if (item.contentType === 'numeric') {
          const blankOk = value.special === 'NOTAPPL';
          if (!(blankOk && pair.from.trim() === '') && !isNumber(pair.from)) {
            fail(`value ${JSON.stringify(pair.from)} is not a number`);
          }
          if (pair.to !== undefined) {
            if (!isNumber(pair.to)) fail(`value ${JSON.stringify(pair.to)} is not a number`);
            if (toNumber(pair.to) < toNumber(pair.from)) fail(`range ${pair.from}:${pair.to} ends before it starts`);
          }
        } else if (item.contentType === 'alpha') {
          if (pair.to !== undefined) fail(`alpha values cannot be ranges, got ${JSON.stringify(pair.from)}:${JSON.stringify(pair.to)}`);
          if (pair.from.length > item.length) {
            fail(`value ${JSON.stringify(pair.from)} is longer than the item (${item.length} characters)`);
          }
        }
      }
    }
  }

  private relation(relation: Dictionary['relations'][number]): void {
    const tag = `[Relation] ${relation.name}`;
    this.name(relation, '[Relation]', relation.name);
    const records = new Set(this.dict.levels.flatMap((l) => l.records.map((r) => r.name)));
    const items = new Set(this.dict.levels.flatMap((l) => [...l.ids, ...l.records.flatMap((r) => r.items)].map((i) => i.name)));
    const known = (n: string): boolean => records.has(n) || items.has(n);
    if (!known(relation.primary))
      this.fail(relation, 'primary', `${tag}: primary ${JSON.stringify(relation.primary)} is not a record or item of the dictionary`);
    if (relation.links.length === 0) this.fail(relation, undefined, `${tag}: a relation needs at least one Secondary`);
    for (const link of relation.links) {
      const fail = (message: string): never => this.fail(link, undefined, `${tag}: ${message}`);
      if (!known(link.secondary)) fail(`secondary ${JSON.stringify(link.secondary)} is not a record or item of the dictionary`);
      if (link.primaryLink !== undefined && !items.has(link.primaryLink))
        fail(`primary link ${link.primaryLink} is not an item of the dictionary`);
      if (link.secondaryLink !== undefined && !items.has(link.secondaryLink))
        fail(`secondary link ${link.secondaryLink} is not an item of the dictionary`);
    }
  }
}

/** A value-set number as CSPro accepts it: optional sign, digits, `.` or `,` as decimal mark. */
function isNumber(text: string): boolean {
  return /^\s*[-+]?(\d+([.,]\d*)?|[.,]\d+)\s*$/.test(text);
}

function toNumber(text: string): number {
  return Number(text.trim().replace(',', '.'));
}
