import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { backupRefusedOnPostgres } from '../../helpers/backup-store.js';
import { tempDir, tempHome } from '../../helpers/temp-home.js';

// Where `sds backup` writes and what `sds restore` reads (docs/backup.md#the-destination,
// docs/backup.md#restore): only the last folder of a destination is made, never one inside the
// home; a folder of backups is named, not guessed at, unless --latest asks for the newest.

interface ErrorReply {
  error: string;
  message: string;
  details: Record<string, unknown>;
}

test('a destination whose parent is missing is refused, naming the parent, and nothing is made', async () => {
  const home = await tempHome();
  const work = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    // /mnt/usb not mounted: /mnt/usb/backups is not there, and must not be made on the system disk.
    const dest = join(work.root, 'mnt', 'usb', 'backups', 'sds');
    const r = runCli(home.root, ['backup', dest, '--json']);
    assert.equal(r.code, 3, show(r));
    const err = r.json<ErrorReply>();
    assert.equal(err.error, 'BACKUP_DEST_PARENT_MISSING');
    assert.equal(err.details.parent, join(work.root, 'mnt', 'usb', 'backups'));
    assert.ok(err.message.includes(`the folder ${join(work.root, 'mnt', 'usb', 'backups')}`), err.message);
    assert.equal(existsSync(join(work.root, 'mnt')), false, 'no folder of the path was made');

    const human = runCli(home.root, ['backup', dest]);
    assert.equal(human.code, 3, show(human));
    assert.match(human.stderr, /BACKUP_DEST_PARENT_MISSING: .*does not exist.*create or mount/);

    // The parent exists: the last folder alone is made, 0700, and holds the backup.
    mkdirSync(join(work.root, 'mnt', 'usb', 'backups'), { recursive: true });
    const ok = runCli(home.root, ['backup', dest, '--json']);
    assert.equal(ok.code, 0, show(ok));
    assert.equal(statSync(dest).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(dest), [ok.json<{ name: string }>().name]);
  } finally {
    await home.cleanup();
    work.cleanup();
  }
});

test('a destination inside the home is refused, through a symbolic link too, and not made', async () => {
  const home = await tempHome();
  const work = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    symlinkSync(home.root, join(work.root, 'link-to-home'));
    const inside = [home.root, join(home.root, 'backups'), join(home.root, 'logs', 'nightly'), join(work.root, 'link-to-home', 'bk')];
    for (const dest of inside) {
      const r = runCli(home.root, ['backup', dest, '--json']);
      assert.equal(r.code, 2, show(r));
      const err = r.json<ErrorReply>();
      assert.equal(err.error, 'BACKUP_DEST_INVALID', dest);
      assert.match(err.message, /inside the home/, dest);
    }
    assert.equal(existsSync(join(home.root, 'backups')), false);
    assert.equal(existsSync(join(home.root, 'logs', 'nightly')), false);
    assert.equal(existsSync(join(home.root, 'bk')), false);
    assert.deepEqual(
      readdirSync(home.root).filter((n) => n.includes('sds-backup')),
      [],
      'no backup was written into the home',
    );
  } finally {
    await home.cleanup();
    work.cleanup();
  }
});

test("sds migrate still backs up into the home's backups/ before it upgrades", () => {
  const old = tempDir();
  try {
    mkdirSync(old.root, { recursive: true });
    const db = new Database(old.db);
    db.pragma('journal_mode = WAL');
    migrate(db, loadMigrations().slice(0, 10));
    db.close();
    const r = runCli(old.root, ['migrate', '--json']);
    assert.equal(r.code, 0, show(r));
    const backup = r.json<{ backup: string }>().backup;
    assert.equal(join(backup, '..'), join(old.root, 'backups'));
    assert.ok(existsSync(join(backup, 'manifest.json')));
  } finally {
    old.cleanup();
  }
});

test('restore of a folder of backups names them and how to pick one; --latest takes the newest complete one', async () => {
  const home = await tempHome();
  const work = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    const dest = join(work.root, 'backups');
    const made: string[] = [];
    for (const n of [1, 2, 3]) {
      const photo = join(work.root, `photo-${n}.jpg`);
      writeFileSync(photo, `photo ${n}`);
      const put = runCli(home.root, ['files', 'put', photo]);
      assert.equal(put.code, 0, show(put));
      const r = runCli(home.root, ['backup', dest, '--json']);
      assert.equal(r.code, 0, show(r));
      made.push(r.json<{ name: string }>().name);
    }
    // Not backups: a folder of the right name without a manifest (a half-made or foreign one,
    // named as if newer), a hidden partial folder and a file. --latest must pass them over.
    mkdirSync(join(dest, 'sds-backup-29991231T235959Z'));
    mkdirSync(join(dest, '.sds-backup-29991231T235959Z.partial-00112233'));
    writeFileSync(join(dest, 'README.txt'), 'nightly backups');
    const newestFirst = [...made].reverse();

    const target = join(work.root, 'restored');
    const human = runCli(target, ['restore', dest]);
    assert.equal(human.code, 2, show(human));
    assert.match(human.stderr, /BACKUP_NOT_CHOSEN: .* is a folder of backups, not one backup: it holds 3 backups, newest first/);
    // Names made within one second share a prefix (`…Z`, `…Z-2`): each is found with the
    // timestamp that follows it.
    const listed = newestFirst.map((name) => human.stderr.indexOf(`${name} (`));
    assert.ok(
      listed.every((at, i) => at > 0 && (i === 0 || at > listed[i - 1]!)),
      `every backup named, newest first:\n${human.stderr}`,
    );
    assert.ok(!human.stderr.includes('29991231'), 'a folder without a manifest is not offered');
    assert.ok(human.stderr.includes(`sds restore ${join(dest, newestFirst[0]!)}`), human.stderr);
    assert.ok(human.stderr.includes(`sds restore ${dest} --latest`), human.stderr);
    assert.equal(existsSync(target), false, 'nothing was written');

    const json = runCli(target, ['restore', dest, '--json']);
    assert.equal(json.code, 2, show(json));
    const err = json.json<ErrorReply>();
    assert.equal(err.error, 'BACKUP_NOT_CHOSEN');
    assert.deepEqual(err.details.backups, newestFirst);
    assert.equal(err.details.newest, join(dest, newestFirst[0]!));

    const latest = runCli(target, ['restore', dest, '--latest', '--json']);
    assert.equal(latest.code, 0, show(latest));
    assert.equal(latest.json<{ source: string }>().source, join(dest, newestFirst[0]!));
    assert.equal(readFileSync(join(target, 'files', 'media', 'photo-3.jpg'), 'utf8'), 'photo 3');

    // One backup named directly restores that one, --latest or not.
    const second = join(work.root, 'restored-2');
    const picked = runCli(second, ['restore', join(dest, made[0]!), '--latest', '--json']);
    assert.equal(picked.code, 0, show(picked));
    assert.equal(existsSync(join(second, 'files', 'media', 'photo-2.jpg')), false, 'the first backup, before photo 2');
  } finally {
    await home.cleanup();
    work.cleanup();
  }
});

test('--latest on a folder without a complete backup is BACKUP_NOT_FOUND; without it, not a backup folder', () => {
  const work = tempDir();
  try {
    const dest = join(work.root, 'empty-backups');
    mkdirSync(join(dest, 'sds-backup-20200101T000000Z'), { recursive: true });
    const latest = runCli(join(work.root, 't1'), ['restore', dest, '--latest', '--json']);
    assert.equal(latest.code, 3, show(latest));
    const err = latest.json<ErrorReply>();
    assert.equal(err.error, 'BACKUP_NOT_FOUND');
    assert.match(err.message, /holds no complete backup/);
    const plain = runCli(join(work.root, 't2'), ['restore', dest, '--json']);
    assert.equal(plain.code, 2, show(plain));
    assert.equal(plain.json<ErrorReply>().error, 'BACKUP_MANIFEST_INVALID');
    assert.equal(existsSync(join(work.root, 't1')) || existsSync(join(work.root, 't2')), false);
  } finally {
    work.cleanup();
  }
});
