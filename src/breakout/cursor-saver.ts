/**
 * When a breakout saves its store cursor (docs/durability.md#breakout-targets). Pages commit in the
 * target out of order when several sessions write; the cursor may only cover the contiguous
 * prefix of committed pages, and only once the target holds them durably. Saving is grouped:
 * the target is made durable (`TargetSession.makeDurable`, one fsync of a SQLite target's WAL)
 * and the cursor saved every `everyPages` pages or `everyMs` milliseconds, whichever comes
 * first, and at the end of the run. The cursor may lag behind the committed pages (a rerun
 * replays them with delete-then-insert) but never lead them.
 */
import type { BreakoutCursor } from '../store/breakout-state-repo.js';

export interface CursorSaving {
  /** Pages committed since the last save that call for a save (at least 1). */
  everyPages: number;
  /** Milliseconds since the last save after which the next committed page calls for a save. */
  everyMs: number;
}

/**
 * Defaults: about one fsync of the target and one store commit per second of breakout, instead
 * of one of each per page; a power cut then costs at most about a second of pages replayed.
 */
export const CURSOR_SAVING: CursorSaving = { everyPages: 50, everyMs: 1000 };

export interface CursorSaverOptions {
  every?: Partial<CursorSaving>;
  now: () => Date;
  /** Saves the cursor in the store (called only after the target was made durable); awaited when it returns a promise. */
  save: (cursor: BreakoutCursor) => unknown;
}

export class CursorSaver {
  private readonly every: CursorSaving;
  private readonly committed = new Map<number, BreakoutCursor>();
  /** Pages 0 … nextSeq-1 are committed; `covered` is the last case of page nextSeq-1. */
  private nextSeq = 0;
  private covered: BreakoutCursor | undefined;
  private savedSeq = 0;
  private lastSave: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly opts: CursorSaverOptions) {
    const everyPages = opts.every?.everyPages ?? CURSOR_SAVING.everyPages;
    const everyMs = opts.every?.everyMs ?? CURSOR_SAVING.everyMs;
    this.every = { everyPages: Math.max(1, Math.floor(everyPages)), everyMs: Math.max(0, everyMs) };
    this.lastSave = opts.now().getTime();
  }

  /** Records that page `seq` (whose last case is `last`) is committed in the target. */
  pageCommitted(seq: number, last: BreakoutCursor): void {
    this.committed.set(seq, last);
    while (this.committed.has(this.nextSeq)) {
      this.covered = this.committed.get(this.nextSeq);
      this.committed.delete(this.nextSeq);
      this.nextSeq += 1;
    }
  }

  /** Whether committed pages wait to be covered and the page or time rule asks for a save. */
  due(): boolean {
    const waiting = this.nextSeq - this.savedSeq;
    if (waiting === 0) return false;
    return waiting >= this.every.everyPages || this.opts.now().getTime() - this.lastSave >= this.every.everyMs;
  }

  /**
   * Makes the target durable, then saves the cursor over every page committed contiguously when
   * the save starts (or over `end`, a cursor past them all, when the run has loaded every page).
   * Saves run one at a time, in call order, so the saved cursor only moves forward and each
   * `makeDurable` happens after the commits it covers.
   */
  save(makeDurable: () => Promise<void>, end?: BreakoutCursor): Promise<void> {
    const run = this.queue.then(async () => {
      const seq = this.nextSeq;
      const cursor = end ?? this.covered;
      if (!cursor || (seq === this.savedSeq && !end)) return;
      await makeDurable();
      await this.opts.save(cursor);
      this.savedSeq = seq;
      this.lastSave = this.opts.now().getTime();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
