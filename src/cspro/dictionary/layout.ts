/**
 * Column layout of dictionary records, as CSPro computes it (docs/cspro-formats.md#column-layout).
 *
 * These functions update a model that the parsers have just built and nobody else holds yet:
 * the parsers keep a map from model objects to source locations for error messages, and that
 * map must survive layout, so objects are updated in place instead of copied.
 */

import type { Dictionary, DictItem, DictRecord } from './model.js';

/** Last column used by an item, all occurrences included. */
export function itemEnd(item: Pick<DictItem, 'start' | 'length' | 'occurrences'>): number {
  return item.start + item.length * item.occurrences - 1;
}

/** Last column of the record type, 0 when the dictionary has none. */
export function recordTypeEnd(dict: Pick<Dictionary, 'recordType'>): number {
  const { start, length } = dict.recordType;
  return start > 0 && length > 0 ? start + length - 1 : 0;
}

/**
 * Length of the id part of a record line for `levelIndex`: record type plus the id items of that
 * level and its ancestors (what CSPro's DictionarySerializerHelper calls the id record length).
 */
export function idRecordLength(dict: Pick<Dictionary, 'recordType' | 'levels'>, levelIndex: number): number {
  let end = Math.max(1, recordTypeEnd(dict));
  for (const level of dict.levels.slice(0, levelIndex + 1)) {
    for (const id of level.ids) if (!id.subitem) end = Math.max(end, itemEnd(id));
  }
  return end;
}

/** How a JSON record item without `start` is to be placed. */
export interface PendingStart {
  /** Offset from the parent's start; present for subitems only. */
  subitemOffset?: number;
}

/**
 * Places, in order, the items of one record whose `start` the JSON file omitted (relative
 * dictionaries): a non-subitem goes at the next free column, a subitem at its parent's start plus
 * its `subitemOffset`. Items with an explicit start keep it and still advance the next column.
 */
export function placeRecordItems(items: DictItem[], firstStart: number, pending: ReadonlyMap<DictItem, PendingStart>): void {
  let next = firstStart;
  let parentStart = firstStart;
  for (const item of items) {
    const hint = pending.get(item);
    if (hint !== undefined) item.start = item.subitem ? parentStart + (hint.subitemOffset ?? 0) : next;
    if (!item.subitem) {
      parentStart = item.start;
      next = item.start + item.length * item.occurrences;
    }
  }
}

/**
 * CSPro's DictionaryValidator::AdjustStartPositions for relative multi-level dictionaries: the
 * record type and the id items of every level are packed first, then every record of every level
 * starts after the deepest level's ids (so level-1 records leave room for level-2 ids). Subitems
 * keep their offset from their parent.
 */
export function adjustStartPositions(dict: Dictionary): void {
  let placed = dict.recordType.start === 0;
  let next = 1;
  const packItems = (items: DictItem[]): void => {
    let oldParent = 0;
    let newParent = 0;
    for (const item of items) {
      if (!item.subitem) {
        oldParent = item.start;
        item.start = next;
        newParent = next;
        next += item.length * item.occurrences;
      } else {
        item.start = newParent + (item.start - oldParent);
      }
    }
  };
  for (const level of dict.levels) {
    let oldParent = 0;
    let newParent = 0;
    for (const item of level.ids) {
      if (!placed && dict.recordType.start <= next) {
        dict.recordType.start = next;
        next += dict.recordType.length;
        placed = true;
      }
      if (!item.subitem) {
        oldParent = item.start;
        item.start = next;
        newParent = next;
        next += item.length * item.occurrences;
      } else {
        item.start = newParent + (item.start - oldParent);
      }
    }
  }
  if (!placed) {
    dict.recordType.start = next;
    next += dict.recordType.length;
  }
  const firstRecordColumn = next;
  for (const level of dict.levels) {
    for (const record of level.records) {
      next = firstRecordColumn;
      packItems(record.items);
    }
  }
}

/**
 * CSPro's DictionaryValidator::GetRecordLength: the longest of 1, the record type, the id items
 * of all levels and every non-subitem item of the record.
 */
function recordLength(dict: Pick<Dictionary, 'recordType' | 'levels'>, record: Pick<DictRecord, 'items'>): number {
  let end = idRecordLength(dict, dict.levels.length - 1);
  for (const item of record.items) if (!item.subitem) end = Math.max(end, itemEnd(item));
  return end;
}

/** Sets `length` on every record of the dictionary. */
export function setRecordLengths(dict: Dictionary): void {
  for (const level of dict.levels) for (const record of level.records) record.length = recordLength(dict, record);
}
