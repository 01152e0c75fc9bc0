import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectory } from '../../shared/durable-file.js';
import { completeBackups } from './list-backups.js';

/**
 * Removes the oldest complete backups of `dest` beyond `keep` (by the manifest's created_at, then
 * name), always keeping `newest` (the one just made). Only complete backups count
 * (`completeBackups`): a half-made backup, another tool's folder or a file is never touched.
 * Returns the names removed.
 */
export function pruneBackups(dest: string, keep: number, newest: string): string[] {
  const complete = completeBackups(dest);
  // The backup just made leads whatever the clocks of earlier ones said.
  const ordered = [...complete.filter((b) => b.name === newest), ...complete.filter((b) => b.name !== newest)];
  const removed = ordered.slice(keep).map((b) => b.name);
  for (const name of removed) rmSync(join(dest, name), { recursive: true, force: true });
  if (removed.length > 0) fsyncDirectory(dest);
  return removed;
}
