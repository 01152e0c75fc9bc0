import type { StoreScope } from '../../store/store-contract.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { BinaryItemRow } from '../../store/binary-items-repo.js';
import { checkCaseFields, type CaseLimits } from '../../cspro/case/case-limits.js';
import { sameClock, sameContent } from './content.js';
import { keepRevision } from './revisions.js';
import { inStoredForm } from './stored-text.js';
import { putCase } from './write.js';

/** A case to replace as it is: its content, the revision it keeps, and its binary-item rows. */
export interface CaseAsItIs {
  write: CaseWrite;
  revision: number;
  binary: Omit<BinaryItemRow, 'caseGuid'>[];
}

function sameBinary(a: readonly Omit<BinaryItemRow, 'caseGuid'>[], b: readonly Omit<BinaryItemRow, 'caseGuid'>[]): boolean {
  const key = (r: Omit<BinaryItemRow, 'caseGuid'>) => `${r.signature} ${r.size} ${r.modifiedTime}`;
  const x = a.map(key).sort();
  const y = b.map(key).sort();
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

/**
 * "Replace as it is" (the CSWeb import: docs/migrating-from-csweb.md#how-the-import-runs): each
 * case replaces the stored one without a merge, at the revision it brings (recorded under
 * `origin`, so the store's counter continues above it), with its clock and its binary-item rows
 * as given. A case whose revision, clock and content (`sameContent`, the merge's own equality)
 * are those stored is left unchanged, only its binary-item rows brought up to date. Over a limit
 * of docs/limits.md (`limits`, the store's: limitsOf) is CASE_TOO_LARGE, as on the merge path.
 * Call inside a store transaction, with its scope.
 */
export async function replaceCases(
  store: StoreScope,
  dictionaryId: number,
  cases: readonly CaseAsItIs[],
  origin: string,
  limits: CaseLimits,
): Promise<{ written: number; unchanged: number }> {
  for (const c of cases) checkCaseFields(c.write, limits);
  const existing = await store.cases.getMany(
    dictionaryId,
    cases.map((c) => c.write.guid),
  );
  let written = 0;
  let unchanged = 0;
  for (const c of cases) {
    const write = inStoredForm(c.write);
    const stored = existing.get(write.guid);
    if (stored && stored.revision === c.revision && sameClock(write.clock, stored.clock) && sameContent(write, stored)) {
      unchanged += 1;
      // A case written before its binary items were (or whose rows changed alone) gets them now.
      if (!sameBinary(c.binary, await store.binaryItems.forCase(dictionaryId, write.guid))) {
        await store.binaryItems.replaceForCase(dictionaryId, write.guid, c.binary);
      }
      continue;
    }
    await keepRevision(store, c.revision, dictionaryId, origin);
    await putCase(store, dictionaryId, write, c.revision);
    // The rows as given rather than the descriptors: the import carries what CSWeb held.
    await store.binaryItems.replaceForCase(dictionaryId, write.guid, c.binary);
    written += 1;
  }
  return { written, unchanged };
}
