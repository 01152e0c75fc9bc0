import type { CaseWrite } from '../../store/cases-repo.js';

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

const wellFormed = (s: string) => (s as unknown as WellFormedString).isWellFormed();
const toWellFormed = (s: string) => (s as unknown as WellFormedString).toWellFormed();

/**
 * A case with its text columns (key, label, case note) as the store can hold them: a lone UTF-16
 * surrogate, which a JSON string can carry (`"\ud800"`) but UTF-8 cannot, becomes one U+FFFD, as
 * in every breakout target (docs/sync.md#text-of-a-case). `data` and `notes` are stored as JSON
 * text and keep the escape. The case itself when nothing needs replacing (the usual case: no copy).
 */
export function inStoredForm(c: CaseWrite): CaseWrite {
  const note = c.caseNote;
  if (wellFormed(c.label) && wellFormed(c.caseKey) && (note === undefined || wellFormed(note))) return c;
  return {
    ...c,
    caseKey: toWellFormed(c.caseKey),
    label: toWellFormed(c.label),
    ...(note !== undefined ? { caseNote: toWellFormed(note) } : {}),
  };
}
