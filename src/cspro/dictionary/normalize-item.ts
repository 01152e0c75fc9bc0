/**
 * Rules both dictionary forms share when turning what a file says into model fields, so that a
 * text dictionary and its CSPro 8 JSON conversion give the same model.
 */

import type { ContentType, DictItem, OccurrenceLabel, SpecialName } from './model.js';

const CONTENT_TYPES: readonly ContentType[] = ['numeric', 'alpha', 'image', 'audio', 'document', 'geometry'];
const SPECIAL_NAMES: readonly SpecialName[] = ['MISSING', 'NOTAPPL', 'DEFAULT', 'REFUSED'];

/** Content type from `DataType=` / `contentType`, case-insensitively; undefined when unknown. */
export function toContentType(text: string): ContentType | undefined {
  const lower = text.trim().toLowerCase();
  return CONTENT_TYPES.find((t) => t === lower);
}

/** Special value name, case-insensitively (CSPro compares them that way); undefined when unknown. */
export function toSpecialName(text: string): SpecialName | undefined {
  const upper = text.trim().toUpperCase();
  return SPECIAL_NAMES.find((s) => s === upper);
}

/** True for image, audio, document and geometry items, whose data lives outside the record line. */
export function isBinary(type: ContentType): boolean {
  return type !== 'numeric' && type !== 'alpha';
}

/**
 * Applies what CSPro's JSON reader applies: only numeric items keep decimals, a decimal mark
 * (and only with decimals > 0) and zero fill; binary items are one column wide and never subitems.
 */
export function normalizeItem(item: DictItem): void {
  if (item.contentType !== 'numeric') {
    item.decimals = 0;
    item.decimalMark = false;
    item.zeroFill = false;
  } else if (item.decimals === 0) {
    item.decimalMark = false;
  }
  if (isBinary(item.contentType)) {
    item.length = 1;
    item.subitem = false;
  }
}

/**
 * Keeps the occurrence labels CSPro keeps: only when there are several occurrences, only for
 * occurrences 1..max, the last one given for an occurrence, non-blank, in occurrence order.
 */
export function tidyOccurrenceLabels(labels: readonly OccurrenceLabel[], max: number): OccurrenceLabel[] {
  if (max <= 1) return [];
  const byOccurrence = new Map<number, OccurrenceLabel>();
  for (const l of labels) {
    if (l.occurrence < 1 || l.occurrence > max) continue;
    if (l.labels.every((t) => t.trim() === '')) continue;
    byOccurrence.set(l.occurrence, l);
  }
  return [...byOccurrence.values()].sort((a, b) => a.occurrence - b.occurrence);
}
