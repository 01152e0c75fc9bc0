import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-store.js';
import { AppError } from '../../../src/core/errors.js';
import { tempHome } from '../../helpers/temp-home.js';

test('a new store gets the home layout, WAL, foreign keys and every migration', () => {
  const home = tempHome();
  try {
    const store = openStore(home);
    const latest = loadMigrations().at(-1)!.version;
    assert.equal(store.migration.from, 0);
    assert.equal(store.migration.to, latest);
    assert.equal(store.migration.applied[0], '0001-init');
    assert.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(store.db.pragma('foreign_keys', { simple: true }), 1);
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['cases', 'dictionaries', 'files', 'revisions', 'settings', 'users']) assert.ok(tables.includes(t), `table ${t}`);
    store.close();
    for (const dir of [home.media, home.breakoutLogs, home.locks]) assert.ok(existsSync(dir), dir);
    const again = openStore(home);
    assert.deepEqual(again.migration.applied, []);
    assert.equal(again.migration.from, latest);
    again.close();
  } finally {
    home.cleanup();
  }
});

test('a store written by a newer sds is refused with STORE_TOO_NEW and left untouched', () => {
  const home = tempHome();
  try {
    openStore(home).close();
    const db = new Database(home.db);
    db.pragma('user_version = 999');
    db.close();
    assert.throws(
      () => openStore(home),
      (e: unknown) => e instanceof AppError && e.code === 'STORE_TOO_NEW' && /version 999/.test(e.message),
    );
    const check = new Database(home.db);
    assert.equal(check.pragma('user_version', { simple: true }), 999);
    check.close();
  } finally {
    home.cleanup();
  }
});

test('a failing migration rolls back and leaves the version where it was', () => {
  const home = tempHome();
  try {
    const db = new Database(home.db);
    const good = { version: 1, name: 'one', sql: 'CREATE TABLE a (x);' };
    const bad = { version: 2, name: 'two', sql: 'CREATE TABLE b (y); CREATE TABLE a (x);' };
    assert.throws(() => migrate(db, [good, bad]), /already exists/);
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    assert.equal((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'b'").get() as { n: number }).n, 0);
    db.close();
  } finally {
    home.cleanup();
  }
});

