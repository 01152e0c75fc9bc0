/**
 * The files this process holds open (Linux: the links of /proc/self/fd), unlinked ones too
 * (`… (deleted)`): a test of cleanup checks that nothing under a folder is still held.
 */
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';

/** Paths under `dir` that this process has open, as the system names them. */
export function openFilesUnder(dir: string): string[] {
  const root = realpathSync(dir) + '/';
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the fd of readdirSync itself)
    }
    if (target.startsWith(root)) out.push(target);
  }
  return out;
}
