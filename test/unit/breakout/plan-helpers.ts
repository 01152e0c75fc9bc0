/**
 * Hand-built dictionaries for the planner and flattener tests, so they do not depend on a
 * parser. Only the fields that shape tables matter; the rest get CSPro's defaults.
 */
import type { ContentType, DictItem, DictLevel, DictRecord, Dictionary } from '../../../src/cspro/dictionary/model.js';

export interface ItemOpts {
  decimals?: number;
  occurrences?: number;
  subitem?: boolean;
  labels?: string[];
}

export function item(name: string, contentType: ContentType, length: number, opts: ItemOpts = {}): DictItem {
  return {
    name,
    labels: opts.labels ?? [name.toLowerCase()],
    aliases: [],
    start: 0,
    length,
    contentType,
    subitem: opts.subitem ?? false,
    occurrences: opts.occurrences ?? 1,
    occurrenceLabels: [],
    decimals: opts.decimals ?? 0,
    decimalMark: (opts.decimals ?? 0) > 0,
    zeroFill: false,
    valueSets: [],
  };
}

export function num(name: string, length: number, opts: ItemOpts = {}): DictItem {
  return item(name, 'numeric', length, opts);
}

export function alpha(name: string, length: number, opts: ItemOpts = {}): DictItem {
  return item(name, 'alpha', length, opts);
}

export function record(name: string, maxOccurrences: number, items: DictItem[]): DictRecord {
  return {
    name,
    labels: [name],
    aliases: [],
    recordType: name[0]!,
    required: false,
    maxOccurrences,
    occurrenceLabels: [],
    items,
    length: 0,
  };
}

export function level(name: string, ids: DictItem[], records: DictRecord[]): DictLevel {
  return { name, labels: [name], aliases: [], ids, records };
}

export function dictionary(name: string, levels: DictLevel[]): Dictionary {
  return {
    name,
    labels: [name],
    version: '8.0',
    aliases: [],
    languages: [],
    recordType: { start: 1, length: 1 },
    relativePositions: true,
    defaults: { zeroFill: false, decimalMark: true },
    editable: true,
    levels,
    relations: [],
  };
}

/** One-level household survey: ids, a single record with a decimal and a repeating item, a roster with subitems and a photo. */
export function surveyDict(): Dictionary {
  return dictionary('SURVEY_DICT', [
    level(
      'SURVEY_QUEST',
      [num('PROV', 2), num('HHNO', 4)],
      [
        record('HOUSING', 1, [alpha('H_NAME', 20), num('H_AREA', 5, { decimals: 1 }), num('H_ROOMS', 1, { occurrences: 3 })]),
        record('PERSON', 10, [
          num('P_AGE', 3),
          alpha('P_DOB', 6),
          num('P_DOB_M', 2, { subitem: true }),
          num('P_DOB_Y', 4, { subitem: true }),
          num('P_CHILD', 3, { occurrences: 2 }),
          num('P_CHILD_SEX', 1, { subitem: true }),
          item('P_PHOTO', 'image', 1),
        ]),
      ],
    ),
  ]);
}

/** Two levels: a building (level 1) with households (level 2) holding a roster. */
export function twoLevelDict(): Dictionary {
  return dictionary('TWO_DICT', [
    level('BUILDING', [num('BLD', 3)], [record('BUILD_REC', 1, [num('ROOF', 1)])]),
    level('HOUSEHOLD', [num('HU', 2)], [record('HOUSE_REC', 1, [num('PC', 1)]), record('POP_REC', 35, [num('LINE', 2), num('AGE', 3)])]),
  ]);
}
