/**
 * One fsync shared by every commit that waits for it: group commit for the SQLite store of
 * `sds serve` (docs/durability.md#group-commit). A commit made while an fsync runs cannot count
 * on that one (it may have started before the commit's pages were written), so it waits for the
 * next, which starts when the running one ends and serves every commit that came meanwhile.
 */
export class GroupFsync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private rounds = 0;

  constructor(
    /** Flushes the file to disk; runs off the event loop (libuv's pool), one at a time. */
    private readonly sync: () => Promise<void>,
  ) {}

  /** Resolves once an fsync that started after this call has ended; rejects if it failed. */
  after(): Promise<void> {
    if (this.next) return this.next;
    if (this.running) {
      const ignore = (): void => {};
      this.next = this.running.then(ignore, ignore).then(() => {
        this.next = undefined;
        return this.start();
      });
      return this.next;
    }
    return this.start();
  }

  /** How many fsyncs have started: for tests and metrics of how well commits group. */
  get started(): number {
    return this.rounds;
  }

  private start(): Promise<void> {
    this.rounds += 1;
    const round: Promise<void> = this.sync().finally(() => {
      if (this.running === round) this.running = undefined;
    });
    this.running = round;
    return round;
  }
}
