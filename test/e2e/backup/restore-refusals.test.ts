import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, show } from '../../helpers/run-cli.js';
import { tempDir, tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

// `sds restore` checks everything before it writes anything (docs/backup.md#restore): each
// refusal has its own code, names the file, and leaves the target home untouched.

// A backup folder, which only a SQLite home makes (on PostgreSQL `sds backup` refuses:
// backup-store.ts); restoring it is the same on every run.
const home = await tempHome('sqlite');
const work = tempDir();
const PHOTO = Buffer.from('a photo of house 1, pretend JPEG bytes');
// A binary case item's content as sds keeps it (docs/sync.md#binary-items): named by its md5.
const ITEM = Buffer.from('a binary case item: an interviewer’s signature image');
const ITEM_PATH = `files/binary-items/simplecapi_dict/${createHash('md5').update(ITEM).digest('hex')}`;
let good: string;

before(() => {
  writeHomeConfig(home, { limits: {} });
  const photo = join(work.root, 'house 1.jpg');
  writeFileSync(photo, PHOTO);
  const put = runCli(home.root, ['files', 'put', photo, '--name', 'photos/house 1.jpg']);
  assert.equal(put.code, 0, show(put));
  mkdirSync(join(home.root, 'files', 'binary-items', 'simplecapi_dict'), { recursive: true });
  writeFileSync(join(home.root, ...ITEM_PATH.split('/')), ITEM);
  const r = runCli(home.root, ['backup', join(work.root, 'backups'), '--json']);
  assert.equal(r.code, 0, show(r));
  good = r.json<{ path: string }>().path;
});
after(async () => {
  await home.cleanup();
  work.cleanup();
});

let n = 0;
/** A copy of the good backup to spoil, and a target home path that does not exist yet. */
function copyOfBackup(): { src: string; target: string } {
  n += 1;
  const src = join(work.root, `copy-${n}`, 'sds-backup-x');
  cpSync(good, src, { recursive: true });
  return { src, target: join(work.root, `target-${n}`) };
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Rewrites one manifest entry to describe the file as it now is (so only the deeper check can catch it). */
function relist(src: string, path: string, extra: Record<string, unknown> = {}): void {
  const m = JSON.parse(readFileSync(join(src, 'manifest.json'), 'utf8')) as { files: { path: string; size: number; sha256: string }[] };
  const e = m.files.find((f) => f.path === path)!;
  e.size = statSync(join(src, path)).size;
  e.sha256 = sha256(join(src, path));
  writeFileSync(join(src, 'manifest.json'), JSON.stringify({ ...m, ...extra }));
}

function refused(src: string, target: string, code: string, exit: number, file?: string): void {
  const r = runCli(target, ['restore', src, '--json']);
  assert.equal(r.code, exit, show(r));
  const err = r.json<{ error: string; message: string; details: { file?: string } }>();
  assert.equal(err.error, code, show(r));
  if (file !== undefined) assert.ok(err.message.includes(file) && err.details.file?.includes(file), show(r));
  assert.equal(existsSync(target), false, 'nothing was written');
}

test('a good backup restores: same files and bytes, home 0700, files 0600, and the CLI reads it', () => {
  const target = join(work.root, 'good-target');
  const r = runCli(target, ['restore', good, '--json']);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(readFileSync(join(target, 'files', 'media', 'photos', 'house 1.jpg')), PHOTO);
  assert.deepEqual(readFileSync(join(target, ...ITEM_PATH.split('/'))), ITEM);
  const manifest = JSON.parse(readFileSync(join(good, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
  assert.equal(manifest.files.find((f) => f.path === ITEM_PATH)?.sha256, sha256(join(home.root, ...ITEM_PATH.split('/'))));
  assert.deepEqual(readFileSync(join(target, 'config.json')), readFileSync(join(home.root, 'config.json')));
  assert.equal(statSync(target).mode & 0o777, 0o700);
  for (const f of ['sds.db', 'config.json', 'files/media/photos/house 1.jpg'])
    assert.equal(statSync(join(target, f)).mode & 0o777, 0o600, f);
  assert.equal(existsSync(join(target, '.sds.db.restoring')), false);
  const files = runCli(target, ['files', 'list', '--json']);
  assert.equal(files.code, 0, show(files));
  assert.match(files.stdout, /house 1\.jpg/);
  // The backup's folder and files are private too.
  assert.equal(statSync(good).mode & 0o777, 0o700);
  for (const f of ['sds.db', 'manifest.json', 'config.json']) assert.equal(statSync(join(good, f)).mode & 0o777, 0o600, f);
});

test('a file changed after the backup (same size) is BACKUP_CHECKSUM_MISMATCH', () => {
  const { src, target } = copyOfBackup();
  const photo = join(src, 'files', 'media', 'photos', 'house 1.jpg');
  const bytes = readFileSync(photo);
  bytes[0] = bytes[0]! ^ 0xff;
  writeFileSync(photo, bytes);
  refused(src, target, 'BACKUP_CHECKSUM_MISMATCH', 2, 'house 1.jpg');
});

test('a binary item changed after the backup is BACKUP_CHECKSUM_MISMATCH naming it', () => {
  const { src, target } = copyOfBackup();
  writeFileSync(join(src, ...ITEM_PATH.split('/')), Buffer.from(ITEM).fill(0x41, 0, 1));
  refused(src, target, 'BACKUP_CHECKSUM_MISMATCH', 2, ITEM_PATH);
});

test('a file cut short is BACKUP_CHECKSUM_MISMATCH, by its size', () => {
  const { src, target } = copyOfBackup();
  appendFileSync(join(src, 'config.json'), ' ');
  refused(src, target, 'BACKUP_CHECKSUM_MISMATCH', 2, 'config.json');
});

test('a listed file that is gone is BACKUP_FILE_MISSING', () => {
  const { src, target } = copyOfBackup();
  rmSync(join(src, 'config.json'));
  refused(src, target, 'BACKUP_FILE_MISSING', 2, 'config.json');
});

test('a file the manifest does not list is BACKUP_FILE_UNLISTED', () => {
  const { src, target } = copyOfBackup();
  writeFileSync(join(src, 'files', 'media', 'extra.txt'), 'slipped in');
  refused(src, target, 'BACKUP_FILE_UNLISTED', 2, 'extra.txt');
});

test('a damaged store (checksums made to match) is BACKUP_INTEGRITY_FAILED', () => {
  const { src, target } = copyOfBackup();
  const db = join(src, 'sds.db');
  const bytes = readFileSync(db);
  // Garbage over the b-tree pages after the schema page: every table SQLite walks there is broken.
  for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (i * 31) & 0xff;
  writeFileSync(db, bytes);
  relist(src, 'sds.db');
  refused(src, target, 'BACKUP_INTEGRITY_FAILED', 2, 'sds.db');
});

test('a store from a newer sds (schema 999, checksums made to match) is STORE_TOO_NEW', () => {
  const { src, target } = copyOfBackup();
  const db = new Database(join(src, 'sds.db'));
  db.pragma('user_version = 999');
  db.close();
  relist(src, 'sds.db', { schema_version: 999 });
  refused(src, target, 'STORE_TOO_NEW', 1, 'sds.db');
});

test('a manifest that is not JSON, or lists a path outside the home, is BACKUP_MANIFEST_INVALID', () => {
  const a = copyOfBackup();
  writeFileSync(join(a.src, 'manifest.json'), '{"format": "sds-backup", ');
  refused(a.src, a.target, 'BACKUP_MANIFEST_INVALID', 2, 'manifest.json');

  const b = copyOfBackup();
  const m = JSON.parse(readFileSync(join(b.src, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
  m.files[0]!.path = '../escape.txt';
  writeFileSync(join(b.src, 'manifest.json'), JSON.stringify(m));
  refused(b.src, b.target, 'BACKUP_MANIFEST_INVALID', 2, 'manifest.json');
  assert.equal(existsSync(join(work.root, 'escape.txt')), false);
});

test('a folder that is not a backup is BACKUP_NOT_FOUND or BACKUP_MANIFEST_INVALID', () => {
  refused(join(work.root, 'no-such-backup'), join(work.root, 'nt-1'), 'BACKUP_NOT_FOUND', 3);
  mkdirSync(join(work.root, 'plain-folder'));
  refused(join(work.root, 'plain-folder'), join(work.root, 'nt-2'), 'BACKUP_MANIFEST_INVALID', 2, 'manifest.json');
});

test('a home that exists and is not empty is RESTORE_HOME_NOT_EMPTY (exit 4) and is left as it was', () => {
  const target = join(work.root, 'occupied');
  mkdirSync(target);
  writeFileSync(join(target, 'notes.txt'), 'keep me');
  const r = runCli(target, ['restore', good, '--json']);
  assert.equal(r.code, 4, show(r));
  assert.equal(r.json<{ error: string }>().error, 'RESTORE_HOME_NOT_EMPTY');
  assert.deepEqual(readdirSync(target), ['notes.txt']);
  assert.equal(readFileSync(join(target, 'notes.txt'), 'utf8'), 'keep me');
  // Restoring over the live home itself is the same refusal.
  const live = runCli(home.root, ['restore', good, '--json']);
  assert.equal(live.code, 4, show(live));
});

test('an empty existing folder is a valid target', () => {
  const target = join(work.root, 'empty-target');
  mkdirSync(target);
  const r = runCli(target, ['restore', good]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /ready/);
  assert.ok(existsSync(join(target, 'sds.db')));
});
