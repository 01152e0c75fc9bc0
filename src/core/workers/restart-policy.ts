import type { WorkerSettings } from './settings.js';

/**
 * How long to wait before restarting a worker that ended unasked at `now`, given when the
 * restarts before it happened (`earlier`, ms); `undefined` when the restarts within the window
 * have reached the limit, and the server should stop rather than crash in a loop
 * (docs/production.md#workers). Pure: the caller owns the clock.
 */
export function restartDelay(
  earlier: readonly number[],
  now: number,
  s: Pick<WorkerSettings, 'restartLimit' | 'restartWindowMs' | 'restartDelayMs'>,
): number | undefined {
  const recent = earlier.filter((t) => now - t < s.restartWindowMs).length;
  if (recent >= s.restartLimit) return undefined;
  return Math.min(s.restartDelayMs * 2 ** recent, 600_000);
}
