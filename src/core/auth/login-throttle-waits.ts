import type { ThrottleKey } from '../../store/login-throttle-repo.js';

const id = (k: ThrottleKey) => `${k.scope}\u0000${k.username}\u0000${k.address}`;

/**
 * Wakes the attempts of this process waiting on a throttle counter when an attempt of this process
 * on it settles (docs/http-api.md#login-throttling-and-accounts). Only the wake-up is in memory:
 * the attempts in flight and waiting are rows of the store, counted across nodes; an attempt
 * settled on another node is seen at the waiter's next recheck.
 */
export class SettleSignals {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `wake` (at most once) when an attempt of this process settles on one of `keys`; returns what stops listening. */
  listen(keys: ThrottleKey[], wake: () => void): () => void {
    let done = false;
    const once = () => {
      if (done) return;
      done = true;
      stop();
      wake();
    };
    const stop = () => {
      for (const k of keys) {
        const set = this.listeners.get(id(k));
        set?.delete(once);
        if (set?.size === 0) this.listeners.delete(id(k));
      }
    };
    for (const k of keys) {
      const set = this.listeners.get(id(k)) ?? new Set();
      set.add(once);
      this.listeners.set(id(k), set);
    }
    return () => {
      done = true;
      stop();
    };
  }

  /** An attempt on `keys` settled: wakes, in arrival order, every attempt listening on them. */
  settled(keys: ThrottleKey[]): void {
    for (const k of keys) for (const wake of [...(this.listeners.get(id(k)) ?? [])]) wake();
  }
}
