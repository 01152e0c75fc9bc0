import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectory } from '../../shared/durable-file.js';
import { manifestIfComplete } from './manifest.js';

/** The names backupHome gives its folders; nothing else in a destination is ever removed. */
const BACKUP_NAME = /^sds-backup-\d{8}T\d{6}Z(-\d+)?$/;

/**
 * Removes the oldest complete backups of `dest` beyond `keep` (by the manifest's created_at, then
 * name), always keeping `newest` (the one just made). A folder counts only when its name is a
 * backup's and its manifest reads: a half-made backup, another tool's folder or a file is never
 * touched. Returns the names removed.
 */
export function pruneBackups(dest: string, keep: number, newest: string): string[] {
  const complete: { name: string; at: number }[] = [];
  for (const name of readdirSync(dest)) {
    if (!BACKUP_NAME.test(name) || !statSync(join(dest, name)).isDirectory()) continue;
    const m = manifestIfComplete(join(dest, name));
    if (m) complete.push({ name, at: Date.parse(m.created_at) });
  }
  // Newest first; the backup just made leads whatever the clocks of earlier ones said.
  complete.sort((a, b) => Number(b.name === newest) - Number(a.name === newest) || b.at - a.at || (a.name < b.name ? 1 : -1));
  const removed = complete.slice(keep).map((b) => b.name);
  for (const name of removed) rmSync(join(dest, name), { recursive: true, force: true });
  if (removed.length > 0) fsyncDirectory(dest);
  return removed;
}
