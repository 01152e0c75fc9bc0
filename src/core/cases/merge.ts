import type { SyncCase } from '../../cspro/case/model.js';
import type { CaseWrite, StoredCase } from '../../store/cases-repo.js';
import { compareClocks, mergeClocks, tickClock } from './vector-clock.js';
import { sameContent } from './content.js';

export type MergeOutcome = 'inserted' | 'updated' | 'unchanged' | 'older';

/**
 * An incoming case as it would be written: the `level-1` tree encoded once, here, so a reader
 * running in a worker thread can do the encoding and hand over plain strings.
 */
export function toCaseWrite(incoming: SyncCase): CaseWrite {
  return {
    guid: incoming.id,
    caseKey: incoming.caseids,
    label: incoming.label ?? '',
    data: JSON.stringify(incoming['level-1']),
    verified: incoming.verified ?? false,
    deleted: incoming.deleted ?? false,
    clock: incoming.clock,
    partialSave: incoming.partialSave ?? null,
    notes: incoming.notes ?? [],
    ...(incoming.caseNote !== undefined ? { caseNote: incoming.caseNote } : {}),
  };
}

/**
 * Decides what an incoming case (encoded by `toCaseWrite`, left unmodified) does to the stored
 * one. Cases with a clock (sync uploads, `.csdb` files) are reconciled as CSWeb does: an older clock is ignored, a newer one replaces,
 * concurrent clocks merge and the incoming case wins. Cases without a clock (`.dat` files) get
 * this store's device entry, ticked on every real change. Content equal to what is stored is
 * "unchanged" either way, so re-importing a file changes nothing and bumps no revision.
 */
export function mergeCaseWrite(
  incoming: CaseWrite,
  existing: StoredCase | undefined,
  serverDeviceId: string,
): { outcome: MergeOutcome; write?: CaseWrite } {
  if (!existing) {
    // A new case is written as it came (the usual case of an upload): no copy to make.
    return {
      outcome: 'inserted',
      write: incoming.clock.length === 0 ? { ...incoming, clock: [{ deviceId: serverDeviceId, revision: 1 }] } : incoming,
    };
  }
  const write: CaseWrite = { ...incoming };
  if (write.clock.length > 0) {
    const order = compareClocks(write.clock, existing.clock);
    if (order === 'before') return { outcome: 'older' };
    if (order === 'concurrent') write.clock = mergeClocks(existing.clock, write.clock);
  }
  if (sameContent(write, existing)) return { outcome: 'unchanged' };
  if (incoming.clock.length === 0) write.clock = tickClock(existing.clock, serverDeviceId);
  return { outcome: 'updated', write };
}
