import type { Worker } from 'node:cluster';
import { isSdsMessage } from './ipc-message.js';

/**
 * Turns to write on one SQLite file, handed between the workers of `sds serve --workers N` by
 * their primary process over the cluster's IPC channel (docs/decisions.md#workers-on-one-machine-issue-29):
 * a worker waits for its turn without blocking, where SQLite's busy handler would sleep with the
 * whole process stopped.
 */

/** The messages of the turn protocol, marked so that other IPC traffic is left alone. */
type TurnMessage = { sds: 'turn' } | { sds: 'release' };

function isTurnMessage(m: unknown, what: TurnMessage['sds']): boolean {
  return isSdsMessage<TurnMessage>(m, what);
}

/** A worker's side: asks the primary for the turn and waits for it (Store.shareWriteTurns). */
export function ipcWriteTurns(): { take(): Promise<void>; release(): void } {
  const waiting: (() => void)[] = [];
  process.on('message', (m) => {
    if (isTurnMessage(m, 'turn')) waiting.shift()?.();
  });
  return {
    take: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        process.send!({ sds: 'turn' } satisfies TurnMessage);
      }),
    release: () => void process.send!({ sds: 'release' } satisfies TurnMessage),
  };
}

/**
 * The primary's side: one worker holds the turn at a time, the others get it in the order they
 * asked. A worker that ends holding it gives it back by ending (SQLite rolls its transaction back).
 */
export class TurnBroker {
  private readonly queue: Worker[] = [];
  private holder: Worker | undefined;

  /** Handles `m` from `w` when it is a turn message; false otherwise. */
  handle(w: Worker, m: unknown): boolean {
    if (isTurnMessage(m, 'turn')) this.queue.push(w);
    else if (isTurnMessage(m, 'release')) {
      if (this.holder === w) this.holder = undefined;
    } else return false;
    this.pump();
    return true;
  }

  /** Forgets a worker that has ended: its place in the queue, and the turn if it held it. */
  gone(w: Worker): void {
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i] === w) this.queue.splice(i, 1);
    if (this.holder === w) this.holder = undefined;
    this.pump();
  }

  private pump(): void {
    while (this.holder === undefined && this.queue.length > 0) {
      const next = this.queue.shift()!;
      if (next.isDead() || !next.isConnected()) continue;
      this.holder = next;
      next.send({ sds: 'turn' } satisfies TurnMessage);
    }
  }
}
