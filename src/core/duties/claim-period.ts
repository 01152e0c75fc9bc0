import type { StoreScope } from '../../store/store-contract.js';
import { currentNode } from '../../shared/node-id.js';

/** What a claim of a shared duty found: this process's turn, or the node that has it. */
export type DutyTurn = { mine: true } | { mine: false; node: string | null };

/**
 * The start of the period of `periodMs` that `nowMs` falls in, as ISO 8601: periods are counted
 * from the Unix epoch, so every node computes the same slot for the same moment
 * (docs/decisions.md, "Duties across nodes (issue 29)").
 */
function periodStart(nowMs: number, periodMs: number): string {
  return new Date(Math.floor(nowMs / periodMs) * periodMs).toISOString();
}

/**
 * Claims `slot` of the shared duty `duty` for this node (src/shared/node-id.ts) in `scope` (the
 * store, or the caller's transaction): of every node and process claiming the same slot, one
 * gets `{ mine: true }`; the others learn which node has it.
 */
export async function claimDutySlot(scope: StoreScope, duty: string, slot: string, now: Date): Promise<DutyTurn> {
  if (await scope.duties.claim(duty, slot, currentNode().id, now.toISOString())) return { mine: true };
  return { mine: false, node: (await scope.duties.claims(duty)).find((c) => c.slot === slot)?.node ?? null };
}

/**
 * Claims this node's turn at the periodic duty `duty` for the period of `periodMs` that `now`
 * falls in: once per period across every node and process of the store (log pruning).
 */
export async function claimPeriod(scope: StoreScope, duty: string, periodMs: number, now: Date): Promise<DutyTurn> {
  return claimDutySlot(scope, duty, periodStart(now.getTime(), periodMs), now);
}
