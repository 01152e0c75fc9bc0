import type { CaseWrite } from '../../store/cases-repo.js';

/**
 * The one content equality of cases (docs/architecture.md#where-cases-are-written): everything a
 * case holds except its guid (the same by construction) and its vector clock, which each write
 * path weighs in its own way (the merge by order, the CSWeb import as it is). A write whose
 * content equals the stored case's is "unchanged" and bumps no revision, whichever path it takes.
 */
export function sameContent(a: CaseWrite, b: CaseWrite): boolean {
  return (
    a.data === b.data &&
    a.caseKey === b.caseKey &&
    a.label === b.label &&
    a.verified === b.verified &&
    a.deleted === b.deleted &&
    (a.caseNote ?? '') === (b.caseNote ?? '') &&
    JSON.stringify(a.partialSave) === JSON.stringify(b.partialSave) &&
    JSON.stringify(a.notes) === JSON.stringify(b.notes)
  );
}

/** Whether two vector clocks are the same list (devices in the same order). */
export function sameClock(a: CaseWrite['clock'], b: CaseWrite['clock']): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
