import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { manifestIfComplete } from './manifest.js';

/** The names backupHome gives its folders; nothing else in a destination counts as a backup. */
const BACKUP_NAME = /^sds-backup-\d{8}T\d{6}Z(-\d+)?$/;

/** A complete backup in a folder of backups. */
export interface ListedBackup {
  name: string;
  /** The manifest's created_at (ISO 8601). */
  created_at: string;
}

/**
 * The complete backups in `dir` (the DEST of `sds backup`), newest first: by the manifest's
 * created_at, then by name. A folder counts only when its name is a backup's and its manifest
 * reads, so a half-made backup, another tool's folder or a file is never listed.
 */
export function completeBackups(dir: string): ListedBackup[] {
  const out: (ListedBackup & { at: number })[] = [];
  for (const name of readdirSync(dir)) {
    if (!BACKUP_NAME.test(name) || !statSync(join(dir, name), { throwIfNoEntry: false })?.isDirectory()) continue;
    const m = manifestIfComplete(join(dir, name));
    if (m) out.push({ name, created_at: m.created_at, at: Date.parse(m.created_at) });
  }
  out.sort((a, b) => b.at - a.at || (a.name < b.name ? 1 : -1));
  return out.map(({ name, created_at }) => ({ name, created_at }));
}
