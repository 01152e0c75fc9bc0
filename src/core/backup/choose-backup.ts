import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../shared/errors.js';
import { completeBackups } from './list-backups.js';
import { MANIFEST } from './manifest.js';

/** Backups a refusal names by name; more are counted. */
const NAMED = 10;

/**
 * The backup folder a restore reads, from what it was given (docs/backup.md#restore): a backup
 * folder itself, or with `latest` the newest complete backup of a folder of backups (the DEST
 * of `sds backup`). A folder of backups without `latest` is refused with BACKUP_NOT_CHOSEN
 * naming its backups, newest first; a folder that is neither is left to the manifest check,
 * which says that it is not a backup.
 */
export function chooseBackup(src: string, latest: boolean): string {
  if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AppError('BACKUP_NOT_FOUND', `there is no backup folder at ${src}`, { file: src });
  }
  if (existsSync(join(src, MANIFEST))) return src;
  const backups = completeBackups(src);
  if (backups.length === 0) {
    if (!latest) return src;
    throw new AppError('BACKUP_NOT_FOUND', `${src} holds no complete backup (a folder sds-backup-<time> with a manifest that reads)`, {
      file: src,
    });
  }
  if (latest) return join(src, backups[0]!.name);
  const named = backups.slice(0, NAMED).map((b) => `${b.name} (${b.created_at})`);
  const more = backups.length > NAMED ? `, and ${backups.length - NAMED} older` : '';
  throw new AppError(
    'BACKUP_NOT_CHOSEN',
    `${src} is a folder of backups, not one backup: it holds ${backups.length === 1 ? '1 backup' : `${backups.length} backups`}, newest first: ${named.join(', ')}${more}; restore one of them by its folder, or the newest`,
    { file: src, backups: backups.map((b) => b.name), newest: join(src, backups[0]!.name) },
  );
}
