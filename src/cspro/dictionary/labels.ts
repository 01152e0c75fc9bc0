/**
 * Label sets: one label per dictionary language (index 0 = first or only language).
 * Both forms are normalised the same way so a text dictionary and its JSON conversion compare
 * equal: CSPro's JSON writer omits a translation that is empty or equal to the first label,
 * while the text form writes `A||B`; filling every empty slot from index 0 erases the difference.
 */

import type { Language } from './model.js';

/** Number of label slots of a dictionary: one per language, at least one. */
function labelSlots(languages: readonly Language[]): number {
  return Math.max(1, languages.length);
}

/**
 * Fills a sparse label list to exactly `slots` entries. As in CSPro's LabelSet, an empty
 * primary label takes the first defined translation, then every empty slot shows the primary.
 */
function fillLabels(raw: readonly (string | undefined)[], slots: number): string[] {
  const labels = Array.from({ length: slots }, (_, i) => raw[i] ?? '');
  if (labels[0] === '') labels[0] = labels.find((l) => l !== '') ?? '';
  const primary = labels[0] ?? '';
  return labels.map((l) => (l === '' ? primary : l));
}

/** Splits a text-form label argument `A|B|C` by language; labels past the last language are dropped. */
export function splitTextLabels(argument: string, slots: number): string[] {
  return fillLabels(argument.split('|'), slots);
}

/** A JSON label entry as written by CSPro 8: `{ text, language? }`. */
export interface JsonLabel {
  text: string;
  language?: string;
}

/**
 * Maps JSON labels to language slots like CSPro's LabelSet::CreateFromJson: a label with no or
 * an unknown language becomes the primary label only when it comes first, otherwise it is
 * discarded; the first label given for a language wins.
 */
export function mapJsonLabels(entries: readonly JsonLabel[], languages: readonly Language[]): string[] {
  const slots = labelSlots(languages);
  const raw: (string | undefined)[] = [];
  let seen = 0;
  for (const entry of entries) {
    const wanted = entry.language?.toUpperCase();
    let index = wanted === undefined ? -1 : languages.findIndex((l) => l.name.toUpperCase() === wanted);
    if (index < 0) {
      if (seen > 0) continue;
      index = 0;
    }
    seen++;
    if (raw[index] === undefined || raw[index] === '') raw[index] = entry.text;
  }
  return fillLabels(raw, slots);
}
