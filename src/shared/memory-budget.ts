/**
 * A budget of bytes that the requests in flight of one process may hold together
 * (docs/limits.md#memory-of-uploads-in-flight). Each request takes a lease, reserves before it
 * holds more, and releases the whole lease once it ends, whatever way it ends. A reservation that
 * would take the budget past its size is refused, and the caller refuses its request: a process
 * waiting for memory that other requests hold could wait for ever. Pure: no I/O, no clock.
 */

/** What one request holds of a budget. */
export interface MemoryLease {
  /** Bytes this lease holds. */
  readonly held: number;
  /** Takes `bytes` more; false (and nothing taken) when the budget cannot hold them now. */
  reserve(bytes: number): boolean;
  /** Gives back everything this lease holds; later calls do nothing. */
  release(): void;
}

export class MemoryBudget {
  #held = 0;

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`a memory budget is a whole number of bytes, not ${size}`);
  }

  /** Bytes that the open leases hold together. */
  get held(): number {
    return this.#held;
  }

  /** A new lease, holding nothing yet. */
  lease(): MemoryLease {
    let mine = 0;
    let open = true;
    const take = (bytes: number): boolean => {
      if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`a reservation is a whole number of bytes, not ${bytes}`);
      // A lease used after its release would hold bytes nobody gives back.
      if (!open) throw new Error('a memory lease was used after its release');
      if (this.#held + bytes > this.size) return false;
      this.#held += bytes;
      mine += bytes;
      return true;
    };
    const give = (): void => {
      if (!open) return;
      open = false;
      this.#held -= mine;
      mine = 0;
    };
    return {
      get held() {
        return mine;
      },
      reserve: take,
      release: give,
    };
  }
}
