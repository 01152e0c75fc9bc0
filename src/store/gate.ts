/**
 * A FIFO async mutex: the store's one SQLite connection is held by one transaction at a time,
 * and whoever waits for it gets it in the order they asked. Taking a free gate takes no tick.
 */
export class Gate {
  private held = false;
  private readonly waiting: (() => void)[] = [];
  private head = 0;

  /** Takes the gate when it is free (true); false when someone holds it. */
  tryTake(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Takes the gate: at once when free, otherwise after everyone who asked before. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives the gate back: straight to the next waiter (it stays held), or free when nobody waits. */
  release(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined as unknown as () => void;
      if (this.head === this.waiting.length) {
        this.waiting.length = 0;
        this.head = 0;
      } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      next();
    } else this.held = false;
  }
}
