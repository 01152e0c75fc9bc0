import type { ThrottleKey } from '../../store/login-throttle-repo.js';

const id = (k: ThrottleKey) => `${k.scope}\u0000${k.username}\u0000${k.address}`;

/**
 * The login attempts of this process that are charged on a throttle counter and still being
 * checked, and the attempts waiting for them to settle (docs/http-api.md#login-throttling-and-accounts).
 * In memory on purpose: an attempt can only wait for what this process will tell it about.
 */
export class InFlightLogins {
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly waitingFrom = new Map<string, number>();

  /** Attempts of this process in flight on `key`. */
  count(key: ThrottleKey): number {
    return this.counts.get(id(key)) ?? 0;
  }

  /** Attempts from `address` waiting, on any of its counters. */
  waitersFrom(address: string): number {
    return this.waitingFrom.get(address) ?? 0;
  }

  /** One more attempt in flight on each of `keys`. */
  add(keys: ThrottleKey[]): void {
    for (const k of keys) this.counts.set(id(k), this.count(k) + 1);
  }

  /** An attempt on `keys` settled: counts it out and wakes every attempt waiting on those keys. */
  remove(keys: ThrottleKey[]): void {
    for (const k of keys) {
      const n = this.count(k) - 1;
      if (n > 0) this.counts.set(id(k), n);
      else this.counts.delete(id(k));
      const woken = this.waiting.get(id(k));
      this.waiting.delete(id(k));
      // In arrival order; each re-evaluates and, if it must, waits again in the same order.
      for (const wake of woken ?? []) wake();
    }
  }

  /** Resolves when an attempt in flight on `key` settles. */
  wait(key: ThrottleKey): Promise<void> {
    this.waitingFrom.set(key.address, this.waitersFrom(key.address) + 1);
    return new Promise((resolve) => {
      const list = this.waiting.get(id(key)) ?? [];
      list.push(() => {
        const n = this.waitersFrom(key.address) - 1;
        if (n > 0) this.waitingFrom.set(key.address, n);
        else this.waitingFrom.delete(key.address);
        resolve();
      });
      this.waiting.set(id(key), list);
    });
  }
}
