/**
 * The backup module: `sds backup` and `sds restore`, a consistent online copy of a home and its
 * checked restore into a new one (docs/backup.md).
 */
export { backupHome } from './backup-home.js';
export type { BackupOptions, BackupProgress, BackupResult } from './backup-home.js';
export { restoreHome } from './restore-home.js';
export type { RestoreOptions, RestoreProgress, RestoreResult } from './restore-home.js';
