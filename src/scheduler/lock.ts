import { closeSync, openSync } from 'node:fs';
import { lazyRequire } from '../shared/lazy-require.js';

/** proper-lockfile, loaded when a lock is first taken (docs/cli.md#start-up-time). */
const lockfile = lazyRequire<typeof import('proper-lockfile')>('proper-lockfile');

/** A lock whose holder died is taken over after this long without a refresh (proper-lockfile). */
const LOCK_STALE_MS = 60_000;

export interface HeldLock {
  release(): Promise<void>;
  /** Set when the lock was lost while held (its directory removed or not refreshed in time). */
  compromised(): Error | undefined;
}

/**
 * Takes the exclusive lock `file` without waiting: null when another process holds it. The
 * holder refreshes the lock every `staleMs / 2`; a holder that died (crash, SIGKILL, reboot)
 * stops refreshing, and after `staleMs` the next caller takes the lock over.
 */
export async function tryLock(file: string, staleMs = LOCK_STALE_MS): Promise<HeldLock | null> {
  closeSync(openSync(file, 'a'));
  let lost: Error | undefined;
  try {
    const release = await lockfile().lock(file, {
      stale: staleMs,
      retries: 0,
      onCompromised: (err) => {
        // The default throws from a timer and kills the process mid-run; the run goes on and
        // reports the loss instead.
        lost = err;
      },
    });
    return {
      release: async () => {
        if (!lost) await release().catch(() => undefined);
      },
      compromised: () => lost,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw err;
  }
}
