/**
 * `sds backup` copies a SQLite store; on the PostgreSQL store it refuses with
 * BACKUP_STORE_EXTERNAL (pg_dump and the home folder instead: docs/production.md#choosing-a-store).
 * The backup tests run on the run's store: on PostgreSQL each asserts that refusal instead.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from './run-cli.js';
import { tempDir, testStoreKind } from './temp-home.js';

/**
 * On a PostgreSQL run: asserts that `sds backup` of the home at `root` refuses with
 * BACKUP_STORE_EXTERNAL (exit 2) and makes nothing, and returns true (the test has nothing more to
 * check). On a SQLite run: returns false.
 */
export function backupRefusedOnPostgres(root: string): boolean {
  if (testStoreKind() !== 'postgresql') return false;
  const dest = tempDir();
  try {
    const r = runCli(root, ['backup', join(dest.root, 'backups'), '--json']);
    assert.equal(r.code, 2, show(r));
    assert.equal(r.json<{ error: string }>().error, 'BACKUP_STORE_EXTERNAL');
    assert.deepEqual(readdirSync(dest.root), [], 'nothing is made');
  } finally {
    dest.cleanup();
  }
  return true;
}
