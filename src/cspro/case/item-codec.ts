/**
 * One item's value(s) ⇄ the sync-JSON value of the case model (model.ts header,
 * docs/cspro-formats.md#item-values): from a fixed-width line, from a sync-JSON value as a client sends it, and from a
 * `.csdb` column. Pure; the readers add locations to the problems reported here.
 */

import type { DictItem, SpecialName } from '../dictionary/model.js';
import type { ItemValue, RecordObject, ScalarValue } from './model.js';
import { decodeNumericText, encodeNumericText, fromStoredDouble, isSpecialName, type NumericValue } from './numeric-text.js';

/** U+2424 stands for an embedded newline inside fixed-width text (CSPro's NewlineSubstitutor). */
const TEXT_NEWLINE = '\u2424';

/** An item as laid out in its record: the parent of a subitem, and how its occurrences repeat. */
export interface ItemSlot {
  item: DictItem;
  /** The nearest preceding non-subitem item, for subitems. */
  parent?: DictItem;
  /** Total occurrences: item.occurrences, or the parent's occurrences for a subitem of a repeating parent. */
  occurrences: number;
  /** Distance in columns between two occurrences. */
  stride: number;
}

/** Binary items (image, audio, ...) have no fixed-width text; the text and sync codecs skip them. */
export function isBinaryItem(item: DictItem): boolean {
  return item.contentType !== 'numeric' && item.contentType !== 'alpha';
}

const slotCache = new WeakMap<readonly DictItem[], ItemSlot[]>();

/**
 * The slots of a record's (or a level's id) items, binary items left out. Subitem occurrences
 * follow CSPro (docs/cspro-formats.md#item-values): a subitem of a repeating parent repeats with the parent's length as stride;
 * CSPro assumes a subitem and its parent never both repeat, and so do we (the subitem's own
 * occurrences win). Cached per items array.
 */
export function itemSlots(items: readonly DictItem[]): ItemSlot[] {
  const cached = slotCache.get(items);
  if (cached) return cached;
  const slots: ItemSlot[] = [];
  let parent: DictItem | undefined;
  for (const item of items) {
    if (!item.subitem) parent = item;
    if (isBinaryItem(item)) continue;
    if (item.subitem && parent && parent !== item && item.occurrences <= 1 && parent.occurrences > 1) {
      slots.push({ item, parent, occurrences: parent.occurrences, stride: parent.length });
    } else {
      slots.push({
        item,
        ...(item.subitem && parent && parent !== item ? { parent } : {}),
        occurrences: Math.max(1, item.occurrences),
        stride: item.length,
      });
    }
  }
  slotCache.set(items, slots);
  return slots;
}

interface SpecialCodes {
  toCode: Map<SpecialName, number>;
  fromCode: Map<number, SpecialName>;
}

const specialCache = new WeakMap<DictItem, SpecialCodes>();

/**
 * Specials mapped to numeric codes by the item's FIRST value set (`NumericCaseItem` ctor): a
 * special value whose first pair is numeric (`Value=999;Missing` + `Name=MISSING,Special`).
 * A blank pair (`'  '` for NOTAPPL, common in Popstan) maps nothing.
 */
export function specialCodes(item: DictItem): SpecialCodes {
  const cached = specialCache.get(item);
  if (cached) return cached;
  const codes: SpecialCodes = { toCode: new Map(), fromCode: new Map() };
  for (const value of item.valueSets[0]?.values ?? []) {
    const from = value.pairs[0]?.from.trim();
    if (!value.special || from === undefined || !/^[-+]?(\d+\.?\d*|\.\d+)$/.test(from)) continue;
    const code = Number(from);
    codes.toCode.set(value.special, code);
    codes.fromCode.set(code, value.special);
  }
  specialCache.set(item, codes);
  return codes;
}

/**
 * A numeric value as the case model writes it: undefined when blank (NOTAPPL, or a code the
 * first value set maps to NOTAPPL, which CSPro reads as NOTAPPL), a special mapped to its code,
 * an unmapped special as its name, else the number.
 */
export function numericOutput(item: DictItem, value: NumericValue): ScalarValue | undefined {
  const codes = specialCodes(item);
  let internal = value;
  if (typeof internal === 'number') internal = codes.fromCode.get(internal) ?? internal;
  if (internal === 'NOTAPPL') return undefined;
  if (typeof internal === 'string') return codes.toCode.get(internal) ?? internal;
  // A code mapped to a special goes out as that code again: the number itself.
  return typeof value === 'number' ? value : internal;
}

/** An alpha value as the case model writes it: right-trimmed, `␤` back to newline; undefined when blank. */
export function alphaOutput(raw: string): string | undefined {
  let end = raw.length;
  while (end > 0 && raw.charCodeAt(end - 1) === 32) end--;
  if (end === 0) return undefined;
  const text = raw.slice(0, end);
  return text.includes(TEXT_NEWLINE) ? text.replaceAll(TEXT_NEWLINE, '\n') : text;
}

/** `length` characters of `line` from 0-based `offset`, padded with spaces past the end of the line. */
export function fieldText(line: string, offset: number, length: number): string {
  const text = line.slice(offset, offset + length);
  return text.length === length ? text : text.padEnd(length, ' ');
}

/** One occurrence read from a line: the model value (undefined = blank) and, for numerics, the decoded value. */
interface TextOccurrence {
  value: ScalarValue | undefined;
  /** The field text when it was not a valid number (not blank, not CSPro's own `***`). */
  invalidText?: string;
}

/** Reads occurrence `k` (0-based) of a slot from a fixed-width line. */
function readOccurrence(line: string, slot: ItemSlot, k: number): TextOccurrence {
  const { item } = slot;
  const text = fieldText(line, item.start - 1 + k * slot.stride, item.length);
  if (item.contentType === 'alpha') return { value: alphaOutput(text) };
  const decoded = decodeNumericText(text, item.decimals);
  const value = numericOutput(item, decoded);
  if (decoded === 'DEFAULT' && !/^\*+$/.test(text.trim())) return { value, invalidText: text };
  return { value };
}

/**
 * Folds occurrence values into the model's item value: a single value, or for a repeating item
 * an array up to the last non-blank occurrence with `""` for blanks inside. Undefined when blank.
 */
export function foldOccurrences(values: (ScalarValue | undefined)[], repeating: boolean): ItemValue | undefined {
  if (!repeating) return values[0];
  let last = values.length - 1;
  while (last >= 0 && values[last] === undefined) last--;
  if (last < 0) return undefined;
  const out: ScalarValue[] = [];
  for (let k = 0; k <= last; k++) out.push(values[k] ?? '');
  return out;
}

/** A numeric field that was not a number, found while reading a line. */
export interface InvalidField {
  item: string;
  occurrence: number;
  text: string;
}

/**
 * Reads every item of a record (or a level's ids) from one fixed-width line into a record
 * object: one key per non-blank item, in dictionary order. Invalid numerics become DEFAULT
 * (as in CSPro) and are listed in `invalid` for the caller to warn about.
 */
export function readRecordItems(line: string, items: readonly DictItem[], invalid?: InvalidField[]): RecordObject {
  const out: RecordObject = {};
  for (const slot of itemSlots(items)) {
    if (slot.occurrences === 1) {
      // Most items do not repeat: no occurrence array to build and fold.
      const occ = readOccurrence(line, slot, 0);
      if (occ.invalidText !== undefined) invalid?.push({ item: slot.item.name, occurrence: 1, text: occ.invalidText });
      if (occ.value !== undefined) out[slot.item.name] = occ.value;
      continue;
    }
    const values: (ScalarValue | undefined)[] = [];
    for (let k = 0; k < slot.occurrences; k++) {
      const occ = readOccurrence(line, slot, k);
      if (occ.invalidText !== undefined) invalid?.push({ item: slot.item.name, occurrence: k + 1, text: occ.invalidText });
      values.push(occ.value);
    }
    const value = foldOccurrences(values, slot.occurrences > 1);
    if (value !== undefined) out[slot.item.name] = value;
  }
  return out;
}

/** Returned by `plainScalar` when the value needs the full check of `normalizeScalar`. */
export const NEEDS_CHECK = Symbol('needs-check');

const widthCache = new WeakMap<DictItem, number>();

/** The exclusive upper bound of whole numbers that fit an integer item with no special codes; 0 when none is known to. */
function plainBound(item: DictItem): number {
  let bound = widthCache.get(item);
  if (bound === undefined) {
    bound =
      item.contentType === 'numeric' && item.decimals === 0 && specialCodes(item).fromCode.size === 0
        ? (POWERS_OF_TEN[item.length] ?? 0)
        : 0;
    widthCache.set(item, bound);
  }
  return bound;
}

/**
 * The value of the two shapes almost every uploaded item has, answered without allocating:
 * a whole number that fits an integer item without special codes, and a text that fits an
 * alpha item as it is (no trailing blanks, no `␤`). Anything else is NEEDS_CHECK, and
 * `normalizeScalar` gives the same answer for these two shapes (tested).
 */
export function plainScalar(item: DictItem, raw: unknown): ScalarValue | typeof NEEDS_CHECK {
  if (typeof raw === 'number') {
    return raw >= 0 && raw < plainBound(item) && Number.isInteger(raw) ? raw : NEEDS_CHECK;
  }
  if (typeof raw === 'string' && item.contentType === 'alpha') {
    const n = raw.length;
    return n > 0 && n <= item.length && raw.charCodeAt(n - 1) !== 32 && !raw.includes(TEXT_NEWLINE) ? raw : NEEDS_CHECK;
  }
  return NEEDS_CHECK;
}

/** The outcome of normalising one value that came from JSON or SQL. */
export type ValueCheck =
  { ok: true; value: ScalarValue | undefined; truncated?: boolean; tooWide?: boolean } | { ok: false; reason: string };

const NUMBER_TEXT = /^[-+]?(\d+([.,]\d*)?|[.,]\d+)$/;

/**
 * Parses a number written as free text (CSPro's StringToNumber, used for sync-JSON strings and
 * text in a numeric `.csdb` column): blank → NOTAPPL, a special name (any case) → that special,
 * `.` or `,` as decimal mark, no implied decimals. Undefined when it is not a number.
 */
export function parseNumberString(text: string): NumericValue | undefined {
  const t = text.trim();
  if (t === '') return 'NOTAPPL';
  const upper = t.toUpperCase();
  if (isSpecialName(upper)) return upper;
  if (!NUMBER_TEXT.test(t)) return undefined;
  const value = Number(t.replace(',', '.'));
  return value === 0 ? 0 : value;
}

/** True when a number needs more columns than the item has (CSPro would write `***`). */
function tooWide(item: DictItem, value: ScalarValue | undefined): boolean {
  if (typeof value !== 'number') return false;
  // The common case, a non-negative whole number of fewer digits than the width, always fits:
  // answered without formatting the number.
  if (item.decimals === 0 && value >= 0 && value < (POWERS_OF_TEN[item.length] ?? 0) && Number.isInteger(value)) return false;
  return /^\*+$/.test(encodeNumericText(value, item));
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * Normalises one scalar given in sync JSON (or read from a `.csdb` column) for `item`:
 * numeric: a number, a numeric string, a special name or blank; alpha: a string (right-trimmed,
 * cut to the item length) or a number (formatted as text, as CSPro's parser does). `null` is
 * blank. Anything else is refused with a reason.
 */
export function normalizeScalar(item: DictItem, raw: unknown): ValueCheck {
  if (raw === null || raw === undefined) return { ok: true, value: undefined };
  if (item.contentType === 'alpha') {
    if (typeof raw !== 'string' && typeof raw !== 'number') return { ok: false, reason: `expects text, got ${describe(raw)}` };
    let text = typeof raw === 'number' ? String(raw) : raw;
    let truncated = false;
    if (text.length > item.length) {
      text = text.slice(0, item.length);
      truncated = true;
    }
    const value = alphaOutput(text.replaceAll(TEXT_NEWLINE, '\n'));
    return truncated ? { ok: true, value, truncated } : { ok: true, value };
  }
  let decoded: NumericValue | undefined;
  if (typeof raw === 'number') decoded = fromStoredDouble(raw);
  else if (typeof raw === 'string') decoded = parseNumberString(raw);
  else return { ok: false, reason: `expects a number, got ${describe(raw)}` };
  if (decoded === undefined)
    return { ok: false, reason: `expects a number or MISSING/REFUSED/DEFAULT/NOTAPPL, got ${JSON.stringify(raw)}` };
  const value = numericOutput(item, decoded);
  return tooWide(item, value) ? { ok: true, value, tooWide: true } : { ok: true, value };
}

function describe(raw: unknown): string {
  if (Array.isArray(raw)) return 'an array';
  if (typeof raw === 'object') return 'an object';
  return `${typeof raw} ${JSON.stringify(raw)}`;
}
