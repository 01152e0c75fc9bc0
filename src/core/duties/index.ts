/**
 * The duties module: work that every node and process of a store may start but that must run
 * once, claimed by one row per (duty, slot) (docs/decisions.md, "Duties across nodes (issue 29)").
 */
export { claimDutySlot, claimPeriod } from './claim-period.js';
export type { DutyTurn } from './claim-period.js';
