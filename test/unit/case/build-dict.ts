// Small hand-built dictionaries for the case codec tests (no parser involved).
import type { DictItem, DictLevel, DictRecord, Dictionary, DictValue } from '../../../src/cspro/dictionary/model.js';

export function item(name: string, start: number, length: number, extra: Partial<DictItem> = {}): DictItem {
  return {
    name,
    labels: [name],
    aliases: [],
    start,
    length,
    contentType: 'numeric',
    subitem: false,
    occurrences: 1,
    occurrenceLabels: [],
    decimals: 0,
    decimalMark: false,
    zeroFill: false,
    valueSets: [],
    ...extra,
  };
}

export function alpha(name: string, start: number, length: number, extra: Partial<DictItem> = {}): DictItem {
  return item(name, start, length, { contentType: 'alpha', ...extra });
}

/** A first value set with the given special values mapped to codes (code '' = blank pair). */
export function specials(map: Record<string, string>): Pick<DictItem, 'valueSets'> {
  const values: DictValue[] = Object.entries(map).map(([special, code]) => ({
    labels: [special],
    pairs: [{ from: code }],
    special: special as DictValue['special'],
  }));
  return { valueSets: [{ name: 'VS1', labels: ['VS1'], values: [{ labels: ['one'], pairs: [{ from: '1' }] }, ...values] }] };
}

export function record(name: string, recordType: string, maxOccurrences: number, items: DictItem[]): DictRecord {
  return { name, labels: [name], aliases: [], recordType, required: false, maxOccurrences, occurrenceLabels: [], items, length: 0 };
}

export function level(name: string, ids: DictItem[], records: DictRecord[]): DictLevel {
  return { name, labels: [name], aliases: [], ids, records };
}

export function dictionary(name: string, levels: DictLevel[], recordType = { start: 1, length: 1 }): Dictionary {
  return {
    name,
    labels: [name],
    version: '8.0',
    aliases: [],
    languages: [{ name: 'EN', label: 'English' }],
    recordType,
    relativePositions: false,
    defaults: { zeroFill: false, decimalMark: false },
    editable: true,
    levels,
    relations: [],
  };
}

/**
 * MINI_DICT, a small composed two-record dictionary: record type col 1, ids PROV 2–3 and HHNUM 4–6 (zero fill),
 * HH_REC 'H' (ROOF, INCOME implied 2 decimals, GPS_LAT explicit mark, AGE_HEAD with MISSING=99)
 * and PERSON_REC 'P' max 3 (NAME, AGE, DOB with subitems, CHILDREN ×3).
 */
export function miniDict(): Dictionary {
  const ids = [item('PROV', 2, 2, { zeroFill: true }), item('HHNUM', 4, 3, { zeroFill: true })];
  const hh = record('HH_REC', 'H', 1, [
    item('ROOF', 7, 1),
    item('INCOME', 8, 8, { decimals: 2, zeroFill: true }),
    item('GPS_LAT', 16, 10, { decimals: 6, decimalMark: true }),
    item('AGE_HEAD', 26, 2, specials({ MISSING: '99', DEFAULT: '98' })),
  ]);
  const person = record('PERSON_REC', 'P', 3, [
    alpha('NAME', 7, 20),
    item('AGE', 27, 3),
    item('DOB', 30, 8),
    item('DOB_YEAR', 30, 4, { subitem: true }),
    item('DOB_MONTH', 34, 2, { subitem: true }),
    item('CHILDREN', 38, 2, { occurrences: 3, zeroFill: true }),
  ]);
  return dictionary('MINI_DICT', [level('QUEST', ids, [hh, person])]);
}
