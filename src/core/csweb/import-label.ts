/**
 * A CSWeb dictionary label is free text ("Popstan Census 2024"); an sds label prefixes breakout
 * tables and must be a letter then letters, digits or _ (docs/decisions.md, "Move from CSWeb: dictionaries and cases (issue 20)").
 * The nearest valid label is taken and reported; the import never fails on a label.
 */
import { MAX_LABEL_LENGTH } from '../dictionaries/index.js';

const VALID = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The sds label for a CSWeb dictionary, unique among `taken` (lower-cased prefixes) (pure). */
export function mapLabel(cswebLabel: string, name: string, taken: Set<string>): string {
  let base = cswebLabel;
  if (!VALID.test(base) || base.length > MAX_LABEL_LENGTH) {
    const cleaned = cswebLabel
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
    base = VALID.test(cleaned) ? cleaned : VALID.test(name) ? name : `D_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  }
  base = base.slice(0, MAX_LABEL_LENGTH).replace(/_+$/, '') || 'D';
  let label = base;
  for (let n = 2; taken.has(label.toLowerCase()); n++) {
    const suffix = `_${n}`;
    label = base.slice(0, MAX_LABEL_LENGTH - suffix.length) + suffix;
  }
  return label;
}
