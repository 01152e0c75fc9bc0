import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { backupRefusedOnPostgres } from '../../helpers/backup-store.js';
import { tempDir, tempHome } from '../../helpers/temp-home.js';

const backupsIn = (dir: string) => readdirSync(dir).filter((n) => /^sds-backup-\d{8}T\d{6}Z(-\d+)?$/.test(n));

test('--keep 2 keeps the two newest complete backups and never touches anything else in DEST', async () => {
  const home = await tempHome();
  const dest = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    // Things in DEST that are not complete backups of ours: each must survive every prune.
    const foreign = ['sds-backup-notes', 'sds-backup-20200101T000000Z', '.sds-backup-20200101T000000Z.partial-0a0b0c0d', 'README.txt'];
    mkdirSync(join(dest.root, foreign[0]!));
    mkdirSync(join(dest.root, foreign[1]!)); // the right name, no manifest: a half-made or foreign folder
    mkdirSync(join(dest.root, foreign[2]!));
    writeFileSync(join(dest.root, foreign[3]!), 'backups of the census server');

    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = runCli(home.root, ['backup', dest.root, '--keep', '2', '--json']);
      assert.equal(r.code, 0, show(r));
      const out = r.json<{ name: string; pruned: string[] }>();
      made.push(out.name);
      if (i >= 2) assert.deepEqual(out.pruned, [made[i - 2]], `run ${i + 1} removes the oldest`);
      else assert.deepEqual(out.pruned, []);
    }
    assert.deepEqual(
      backupsIn(dest.root)
        .filter((n) => !foreign.includes(n))
        .sort(),
      made.slice(2).sort(),
    );
    for (const f of foreign) assert.ok(existsSync(join(dest.root, f)), `${f} is still there`);
  } finally {
    await home.cleanup();
    dest.cleanup();
  }
});

test('--keep must be a whole number of 1 or more; a destination inside files/ is refused', async () => {
  const home = await tempHome();
  const dest = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    for (const bad of ['0', '-1', 'two', '1.5']) {
      const r = runCli(home.root, ['backup', dest.root, '--keep', bad, '--json']);
      assert.equal(r.code, 2, show(r));
      assert.equal(r.json<{ error: string }>().error, 'USAGE');
    }
    assert.deepEqual(readdirSync(dest.root), [], 'no backup was made');
    const inside = runCli(home.root, ['backup', join(home.media, 'backups'), '--json']);
    assert.equal(inside.code, 2, show(inside));
    assert.equal(inside.json<{ error: string }>().error, 'BACKUP_DEST_INVALID');
    assert.equal(existsSync(join(home.media, 'backups')), false, 'the refused destination was not made');
    writeFileSync(join(dest.root, 'a-file'), '');
    const file = runCli(home.root, ['backup', join(dest.root, 'a-file'), '--json']);
    assert.equal(file.code, 2, show(file));
    assert.equal(file.json<{ error: string }>().error, 'BACKUP_DEST_INVALID');
  } finally {
    await home.cleanup();
    dest.cleanup();
  }
});

test('a store at an older schema is backed up as it is (not migrated), restored, then migrated', () => {
  const old = tempDir();
  const dest = tempDir();
  try {
    // A home as an older sds left it: the first 10 migrations, one dictionary row and a setting.
    mkdirSync(old.root, { recursive: true });
    const db = new Database(old.db);
    db.pragma('journal_mode = WAL');
    migrate(db, loadMigrations().slice(0, 10));
    db.prepare("INSERT INTO settings (name, value) VALUES ('backup-test', 'older store')").run();
    db.close();
    const latest = loadMigrations().at(-1)!.version;

    const r = runCli(old.root, ['backup', dest.root, '--json']);
    assert.equal(r.code, 0, show(r));
    const b = r.json<{ path: string; schema_version: number }>();
    assert.equal(b.schema_version, 10);
    assert.equal(JSON.parse(readFileSync(join(b.path, 'manifest.json'), 'utf8')).schema_version, 10);
    const source = new Database(old.db, { readonly: true });
    assert.equal(source.pragma('user_version', { simple: true }), 10, 'the backup did not migrate the source');
    source.close();

    const target = join(dest.root, 'restored');
    const restored = runCli(target, ['restore', b.path, '--json']);
    assert.equal(restored.code, 0, show(restored));
    const out = restored.json<{ schema_version: number; latest_schema_version: number; needs_migration: boolean }>();
    assert.deepEqual([out.schema_version, out.latest_schema_version, out.needs_migration], [10, latest, true]);
    const human = runCli(join(dest.root, 'restored-2'), ['restore', b.path]);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /run `sds --home .*restored-2 migrate`/);

    const m = runCli(target, ['migrate', '--json']);
    assert.equal(m.code, 0, show(m));
    assert.equal(m.json<{ schema_version: number }>().schema_version, latest);
    const after = new Database(join(target, 'sds.db'), { readonly: true });
    assert.equal(after.prepare("SELECT value FROM settings WHERE name = 'backup-test'").pluck().get(), 'older store');
    after.close();
  } finally {
    old.cleanup();
    dest.cleanup();
  }
});
