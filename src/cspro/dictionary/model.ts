/**
 * The CSPro dictionary model, the same whichever `.dcf` form (text ≤ 7.7 or JSON 8) it came from.
 * It follows CSPro's own semantics (docs/cspro-formats.md), not CSWeb's quirks.
 *
 * Labels are kept as one string per language, aligned with `languages` (index 0 is the first or
 * only language). An empty or missing translation is filled from index 0, which is what CSPro
 * shows, so the text form `A||B` and the JSON form that omits the middle language compare equal.
 */

export type ContentType = 'numeric' | 'alpha' | 'image' | 'audio' | 'document' | 'geometry';

export type SpecialName = 'MISSING' | 'NOTAPPL' | 'DEFAULT' | 'REFUSED';

/** A value-set pair: a single value (`to` absent) or a range `from:to`. Strings, right-trimmed. */
export interface ValuePair {
  from: string;
  to?: string;
}

export interface DictValue {
  labels: string[];
  pairs: ValuePair[];
  special?: SpecialName;
  note?: string;
  image?: string;
  textColor?: string;
}

export interface ValueSet {
  name: string;
  labels: string[];
  link?: string;
  values: DictValue[];
}

export interface OccurrenceLabel {
  /** 1-based occurrence number. */
  occurrence: number;
  labels: string[];
}

export interface DictItem {
  name: string;
  labels: string[];
  note?: string;
  aliases: string[];
  /** Absolute 1-based column in the record line (computed for relative JSON dictionaries). */
  start: number;
  /** Width of one occurrence, in characters. */
  length: number;
  contentType: ContentType;
  subitem: boolean;
  /** Number of consecutive occurrences of the item (1 when it does not repeat). */
  occurrences: number;
  occurrenceLabels: OccurrenceLabel[];
  decimals: number;
  /** True when the decimal mark is physically in the data and counted in `length`. */
  decimalMark: boolean;
  zeroFill: boolean;
  valueSets: ValueSet[];
}

export interface DictRecord {
  name: string;
  labels: string[];
  note?: string;
  aliases: string[];
  /** Record type value, exactly as in the dictionary, unquoted ('' when there is no record type). */
  recordType: string;
  required: boolean;
  /** Maximum occurrences of the record in one case (> 1 makes it a roster). */
  maxOccurrences: number;
  occurrenceLabels: OccurrenceLabel[];
  items: DictItem[];
  /** Line length of the record: record type, all ids and every non-subitem item. */
  length: number;
}

export interface DictLevel {
  name: string;
  labels: string[];
  note?: string;
  aliases: string[];
  ids: DictItem[];
  records: DictRecord[];
}

export interface RelationLink {
  primaryLink?: string;
  secondary: string;
  secondaryLink?: string;
}

export interface Relation {
  name: string;
  primary: string;
  links: RelationLink[];
}

export interface Language {
  name: string;
  label: string;
}

export interface Dictionary {
  name: string;
  labels: string[];
  /** Version as written by the file: `CSPro 7.7` (text) or `8.0` (JSON). Metadata only. */
  version: string;
  note?: string;
  aliases: string[];
  /**
   * The syncable name of a CSPro 8.1 JSON dictionary (`"sync": {"name": …}`): the name the client
   * puts in sync and data-source URLs instead of `name`. Absent when the file sets none or sets the
   * dictionary's own name; the text form has none (docs/cspro-formats.md#the-syncable-name).
   */
  syncableName?: string;
  languages: Language[];
  recordType: { start: number; length: number };
  relativePositions: boolean;
  defaults: { zeroFill: boolean; decimalMark: boolean };
  editable: boolean;
  levels: DictLevel[];
  relations: Relation[];
}

/** The label in the first (default) language. */
export function labelOf(entity: { labels: string[] }): string {
  return entity.labels[0] ?? '';
}
