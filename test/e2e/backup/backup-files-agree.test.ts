import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { backupHome, restoreHome } from '../../../src/core/backup/index.js';
import { putFile } from '../../../src/core/files/files.js';
import { resolveHome } from '../../../src/shared/home.js';
import { openStore } from '../../../src/store/open-store.js';
import { backupRefusedOnPostgres } from '../../helpers/backup-store.js';
import { tempDir, tempHome } from '../../helpers/temp-home.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// Media files are copied after the store's snapshot (docs/backup.md#consistency): a file replaced
// or removed in between must leave the backup's rows describing the bytes the backup holds.
test("media replaced or removed during a backup: the backup's rows match its files, and restore keeps them so", async () => {
  const home = await tempHome();
  const dest = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    const store = await openStore(home);
    for (const name of ['a.jpg', 'b.jpg', 'c.jpg']) await putFile(store, name, Readable.from([Buffer.from(`first version of ${name}`)]));
    await store.close();
    const newer = Buffer.from('second version of b.jpg, longer than the first');

    let touched = false;
    const r = await backupHome(home, dest.root, {
      now: () => new Date(Date.UTC(2026, 10, 24, 2, 0, 0)),
      onProgress: (p) => {
        // After the snapshot, while a.jpg is being copied: b.jpg is replaced (by rename, as the
        // media writer does) and c.jpg is removed.
        if (p.phase !== 'files' || touched) return;
        touched = true;
        writeFileSync(join(home.media, '.b.jpg.tmp'), newer);
        renameSync(join(home.media, '.b.jpg.tmp'), join(home.media, 'b.jpg'));
        rmSync(join(home.media, 'c.jpg'));
      },
    });
    assert.ok(touched);
    assert.equal(r.name, 'sds-backup-20261124T020000Z');
    assert.deepEqual(r.reconciled, { changed: ['b.jpg'], removed: ['c.jpg'] });

    const db = new Database(join(r.path, 'sds.db'), { readonly: true });
    const rows = db.prepare('SELECT name, size, sha256 FROM files ORDER BY name').all();
    db.close();
    assert.deepEqual(rows, [
      { name: 'a.jpg', size: Buffer.byteLength('first version of a.jpg'), sha256: sha256(Buffer.from('first version of a.jpg')) },
      { name: 'b.jpg', size: newer.length, sha256: sha256(newer) },
    ]);
    assert.deepEqual(readFileSync(join(r.path, 'files', 'media', 'b.jpg')), newer);

    const target = resolveHome(join(dest.root, 'restored'));
    const restored = await restoreHome(r.path, target);
    assert.equal(restored.needs_migration, false);
    const back = await openStore(target);
    try {
      assert.deepEqual(
        (await back.files.list()).map((f) => [f.name, f.sha256]),
        [
          ['a.jpg', sha256(readFileSync(join(target.media, 'a.jpg')))],
          ['b.jpg', sha256(readFileSync(join(target.media, 'b.jpg')))],
        ],
      );
    } finally {
      await back.close();
    }
  } finally {
    await home.cleanup();
    dest.cleanup();
  }
});
