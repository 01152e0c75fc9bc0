/**
 * The timers of code that waits with a time limit, injectable so that its tests fire them
 * when they choose instead of sleeping.
 */
export interface Timers {
  /** Calls `fn` once after `ms` milliseconds; the handle cancels it. The timer does not keep the process alive. */
  set(fn: () => void, ms: number): unknown;
  /** Cancels a timer that `set` returned; nothing when it has fired already. */
  clear(handle: unknown): void;
}

/** The process's own timers, unref'd. */
export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
