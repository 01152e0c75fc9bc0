import type { ClockEntry } from '../../cspro/case/model.js';

export type ClockOrder = 'equal' | 'before' | 'after' | 'concurrent';

/**
 * Compares two vector clocks as CSPro does (a missing device counts as revision 0): `before`
 * means `a` happened before `b`.
 */
export function compareClocks(a: ClockEntry[], b: ClockEntry[]): ClockOrder {
  const am = toMap(a);
  const bm = toMap(b);
  let aLess = false;
  let bLess = false;
  for (const device of new Set([...am.keys(), ...bm.keys()])) {
    const x = am.get(device) ?? 0;
    const y = bm.get(device) ?? 0;
    if (x < y) aLess = true;
    if (y < x) bLess = true;
  }
  if (aLess && bLess) return 'concurrent';
  if (aLess) return 'before';
  if (bLess) return 'after';
  return 'equal';
}

/** Per-device maximum of two clocks, devices in first-seen order. */
export function mergeClocks(a: ClockEntry[], b: ClockEntry[]): ClockEntry[] {
  const m = toMap(a);
  for (const { deviceId, revision } of b) m.set(deviceId, Math.max(m.get(deviceId) ?? 0, revision));
  return [...m].map(([deviceId, revision]) => ({ deviceId, revision }));
}

/** The clock with `deviceId`'s revision incremented (added at 1 when absent). */
export function tickClock(clock: ClockEntry[], deviceId: string): ClockEntry[] {
  const m = toMap(clock);
  m.set(deviceId, (m.get(deviceId) ?? 0) + 1);
  return [...m].map(([d, revision]) => ({ deviceId: d, revision }));
}

function toMap(clock: ClockEntry[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const { deviceId, revision } of clock) m.set(String(deviceId), Math.max(m.get(String(deviceId)) ?? 0, revision));
  return m;
}
