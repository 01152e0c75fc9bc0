import type { Store } from '../../store/open-store.js';
import type { StaleUploadsReport } from '../../store/file-store-contract.js';
import { limitsOf } from '../home/index.js';

/** What a sweep of temporary uploads did (paths relative to the home, with `/`). */
export type StalePartsReport = StaleUploadsReport;

export interface StalePartsOptions {
  /** The time the age rule counts from (default: now). */
  now?: number;
  /** Whether a process of this pid runs (default: signal 0, as the job reaper asks). */
  alive?: (pid: number) => boolean;
}

/** Whether a process of this pid runs on this machine: signal 0 checks without signalling. */
function processAlive(pid: number): boolean {
  // 0 and negative pids name process groups; nothing above 2^31 - 1 is a pid.
  if (!Number.isSafeInteger(pid) || pid < 1 || pid > 2 ** 31 - 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary uploads a crash left behind in the store's files (media, synced files,
 * application packages, binary items), with the `stale_part_seconds` limit (docs/sync.md#files,
 * "Temporary files"): under the home's `files/` for a local file store, the unfinished uploads
 * of the database for a PostgreSQL one. `sds serve` runs it as it starts. Never throws: what it
 * cannot read or remove is reported in `failed`.
 */
export async function removeStaleParts(store: Store, opts: StalePartsOptions = {}): Promise<StalePartsReport> {
  return store.fileStore.removeStale({
    now: opts.now ?? Date.now(),
    maxAgeMs: limitsOf(store).stalePartSeconds * 1000,
    selfPid: process.pid,
    alive: opts.alive ?? processAlive,
  });
}
