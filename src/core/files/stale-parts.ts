import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { Store } from '../../store/open-store.js';
import { limitsOf } from '../home/index.js';
import { removeDurably } from './atomic-write.js';
import { isStalePart, partWriter, type StaleRule } from './part-name.js';

/** What a sweep of temporary files did; paths are relative to the home, with `/`. */
export interface StalePartsReport {
  removed: string[];
  /** Temporary files kept: a live process may be writing them. */
  kept: number;
  /** What could not be read or removed, and why (the start goes on). */
  failed: { path: string; reason: string }[];
}

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

const reasonOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * Removes the stale temporary files of the file writer under the home's `files/` (media, synced
 * files, application packages, binary items): those an upload cut by a crash left behind, by the
 * rule of isStalePart with the `stale_part_seconds` limit (docs/sync.md#files, "Temporary
 * files"). `sds serve` runs it as it starts. Other hidden files and anything that is not a
 * regular file are left alone; symbolic links are not followed. Never throws: what it cannot
 * read or remove is reported in `failed`.
 */
export function removeStaleParts(store: Store, opts: StalePartsOptions = {}): StalePartsReport {
  const root = store.home.root;
  const rule: StaleRule = {
    now: opts.now ?? Date.now(),
    maxAgeMs: limitsOf(store).stalePartSeconds * 1000,
    selfPid: process.pid,
    alive: opts.alive ?? processAlive,
  };
  const report: StalePartsReport = { removed: [], kept: 0, failed: [] };
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  const visit = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') report.failed.push({ path: rel(dir), reason: reasonOf(err) });
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        visit(path);
        continue;
      }
      const writer = e.isFile() ? partWriter(e.name) : undefined;
      if (writer === undefined) continue;
      try {
        // Gone meanwhile: its writer renamed it into place or removed it.
        const st = lstatSync(path, { throwIfNoEntry: false });
        if (st === undefined) continue;
        if (!isStalePart(writer, st.mtimeMs, rule)) {
          report.kept += 1;
          continue;
        }
        removeDurably(path);
        report.removed.push(rel(path));
      } catch (err) {
        report.failed.push({ path: rel(path), reason: reasonOf(err) });
      }
    }
  };
  visit(dirname(store.home.media));
  return report;
}
