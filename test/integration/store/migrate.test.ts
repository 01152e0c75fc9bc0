import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { openStore, readSchemaStatus } from '../../../src/store/open-store.js';
import { AppError } from '../../../src/shared/errors.js';
import { sqliteDb, tempDir } from '../../helpers/temp-home.js';

test('a new store gets the home layout, WAL, foreign keys and every migration', async () => {
  const home = tempDir();
  try {
    const store = await openStore(home, { create: true });
    const latest = loadMigrations().at(-1)!.version;
    assert.equal(store.migration.from, 0);
    assert.equal(store.migration.to, latest);
    assert.equal(store.migration.applied[0], '0001-init');
    assert.equal(sqliteDb(store).pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(sqliteDb(store).pragma('foreign_keys', { simple: true }), 1);
    const tables = (
      sqliteDb(store).prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name);
    for (const t of ['cases', 'dictionaries', 'files', 'revisions', 'settings', 'users']) assert.ok(tables.includes(t), `table ${t}`);
    await store.close();
    for (const dir of [home.media, home.breakoutLogs, home.locks]) assert.ok(existsSync(dir), dir);
    const again = await openStore(home);
    assert.deepEqual(again.migration.applied, []);
    assert.equal(again.migration.from, latest);
    await again.close();
  } finally {
    home.cleanup();
  }
});

test('a store written by a newer sds is refused with STORE_TOO_NEW and left untouched', async () => {
  const home = tempDir();
  try {
    await (await openStore(home, { create: true })).close();
    const db = new Database(home.db);
    db.pragma('user_version = 999');
    db.close();
    await assert.rejects(
      openStore(home),
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
  const home = tempDir();
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

test('0005 moves stored cases to the rowid table unchanged, with the revision index carrying guid and deleted', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 5),
    );
    db.prepare(
      `INSERT INTO dictionaries (id, name, label, version, source, source_format, model, created_at, updated_at)
       VALUES (1, 'D', 'd', '7.7', x'00', 'text', '{}', 't', 't')`,
    ).run();
    const insert = db.prepare(
      `INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, created_at, modified_at)
       VALUES (1, ?, ?, '', ?, 0, ?, ?, '[]', NULL, '[]', 'c', 'm')`,
    );
    for (let i = 0; i < 50; i++) insert.run(`g${String(i).padStart(3, '0')}`, `k${i}`, `{"n":${i}}`, i % 7 === 0 ? 1 : 0, 1 + (i % 3));
    const before = db.prepare('SELECT * FROM cases ORDER BY guid').all();
    db.close();

    const store = await openStore(home, { migrate: true });
    assert.deepEqual(store.migration.applied.includes('0005-cases-rowid'), true);
    // The columns 0005 moved (later migrations add their own: 0020 the position, 0021 the case note).
    const moved = Object.keys(before[0] as object).join(', ');
    assert.deepEqual(sqliteDb(store).prepare(`SELECT ${moved} FROM cases ORDER BY guid`).all(), before);
    const ddl = (sqliteDb(store).prepare("SELECT sql FROM sqlite_master WHERE name = 'cases'").get() as { sql: string }).sql;
    assert.doesNotMatch(ddl, /WITHOUT ROWID/);
    const columns = (
      sqliteDb(store).prepare("SELECT name FROM pragma_index_info('cases_by_revision') ORDER BY seqno").all() as { name: string }[]
    ).map((r) => r.name);
    // 0012 appends case_key (sync universe counts); the leading columns are 0005's.
    assert.deepEqual(columns, ['dictionary_id', 'revision', 'guid', 'deleted', 'case_key']);
    // The breakout's keyset page reads follow the index, in (revision, guid) order, from a cursor.
    const page = await store.cases.changedPage(1, { revision: 1, guid: 'g030' }, 99, 5, false);
    assert.deepEqual(
      page.map((c) => [c.revision, c.guid]),
      [
        [1, 'g033'],
        [1, 'g036'],
        [1, 'g039'],
        [1, 'g042'],
        [1, 'g045'],
      ],
    );
    assert.equal(
      await store.cases.countChanged(1, { revision: 2, guid: '' }, 99, true),
      before.filter((r) => (r as { revision: number; deleted: number }).revision >= 2 && (r as { deleted: number }).deleted === 0).length,
    );
    await store.close();
  } finally {
    home.cleanup();
  }
});

test('0006 counts the cases already stored, then triggers keep each dictionary count exact', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    migrate(
      db,
      loadMigrations().filter((m) => m.version < 6),
    );
    const addDictionary = (id: number) =>
      db
        .prepare(
          `INSERT INTO dictionaries (id, name, label, version, source, source_format, model, created_at, updated_at)
           VALUES (?, ?, ?, '7.7', x'00', 'text', '{}', 't', 't')`,
        )
        .run(id, `D${id}`, `d${id}`);
    addDictionary(1);
    addDictionary(2);
    const raw = db.prepare(
      `INSERT INTO cases (dictionary_id, guid, case_key, data, revision, created_at, modified_at) VALUES (?, ?, ?, '{}', 1, 'c', 'm')`,
    );
    for (let i = 0; i < 7; i++) raw.run(1, `a${i}`, `k${i}`);
    raw.run(2, 'b0', 'k0');
    db.close();

    const store = await openStore(home, { migrate: true });
    assert.equal(await store.cases.count(1), 7);
    assert.equal(await store.cases.count(2), 1);
    const write = (guid: string, deleted = false) =>
      store.transaction(async (tx) =>
        tx.cases.upsert(
          1,
          { guid, caseKey: guid, label: '', data: '{}', verified: false, deleted, clock: [], partialSave: null, notes: [] },
          await tx.cases.nextRevision(1, 'test'),
        ),
      );
    await write('new-1');
    await write('new-2');
    assert.equal(await store.cases.count(1), 9);
    // Replacing a case and soft-deleting one are updates: the count stays.
    await write('new-1');
    await write('a0', true);
    assert.equal(await store.cases.count(1), 9);
    assert.equal(await store.cases.countActive(1), 8);
    sqliteDb(store).prepare("DELETE FROM cases WHERE dictionary_id = 1 AND guid IN ('a1', 'a2')").run();
    assert.equal(await store.cases.count(1), 7);
    assert.equal(
      await store.cases.count(1),
      (sqliteDb(store).prepare('SELECT count(*) AS n FROM cases WHERE dictionary_id = 1').get() as { n: number }).n,
    );
    assert.equal(await store.cases.count(3), 0, 'a dictionary without cases counts 0');
    // A dictionary deleted (after its cases) takes its count with it.
    sqliteDb(store).prepare('DELETE FROM cases WHERE dictionary_id = 2').run();
    await store.dictionaries.delete(2);
    assert.equal((sqliteDb(store).prepare('SELECT count(*) AS n FROM case_counts WHERE dictionary_id = 2').get() as { n: number }).n, 0);
    await store.close();
  } finally {
    home.cleanup();
  }
});

test('0020 numbers the cases already stored per dictionary, by creation then row order, without webhook events; new cases get the next', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 20),
    );
    for (const id of [1, 2]) {
      db.prepare(
        `INSERT INTO dictionaries (id, name, label, version, source, source_format, model, created_at, updated_at)
         VALUES (?, ?, ?, '7.7', x'00', 'text', '{}', 't', 't')`,
      ).run(id, `D${id}`, `d${id}`);
    }
    // A subscriber to case changes: the backfill must not look like a change of every case.
    db.prepare(
      `INSERT INTO webhooks (id, name, url, events, secret, created_ms, created_at, updated_at) VALUES (1, 'w', 'http://127.0.0.1:1/x', '["case_modified"]', 's', 0, 't', 't')`,
    ).run();
    db.prepare("INSERT INTO webhook_subscriptions (webhook_id, event) VALUES (1, 'case_modified')").run();
    const raw = db.prepare(
      `INSERT INTO cases (dictionary_id, guid, case_key, data, revision, created_at, modified_at) VALUES (?, ?, ?, '{}', 1, ?, 'm')`,
    );
    // Rows go in out of creation order; two rows share a creation time (one batch).
    raw.run(1, 'c', 'k3', '2025-01-03');
    raw.run(2, 'x', 'k1', '2025-01-01');
    raw.run(1, 'a', 'k1', '2025-01-01');
    raw.run(1, 'b2', 'k2', '2025-01-02');
    raw.run(1, 'b1', 'k2', '2025-01-02');
    const outbox = () => (db.prepare('SELECT count(*) AS n FROM webhook_outbox').get() as { n: number }).n;
    const eventsBefore = outbox();
    db.close();

    const store = await openStore(home, { migrate: true });
    const positions = () =>
      sqliteDb(store).prepare('SELECT dictionary_id AS d, guid, position FROM cases ORDER BY dictionary_id, position').all() as {
        d: number;
        guid: string;
        position: number;
      }[];
    assert.deepEqual(positions(), [
      { d: 1, guid: 'a', position: 1 },
      { d: 1, guid: 'b2', position: 2 },
      { d: 1, guid: 'b1', position: 3 },
      { d: 1, guid: 'c', position: 4 },
      { d: 2, guid: 'x', position: 1 },
    ]);
    assert.equal((sqliteDb(store).prepare('SELECT count(*) AS n FROM webhook_outbox').get() as { n: number }).n, eventsBefore);
    // The capture trigger is back as it was: an update of a case is captured again.
    const write = (dict: number, guid: string, label = '') =>
      store.transaction(async (tx) =>
        tx.cases.upsert(
          dict,
          { guid, caseKey: guid, label, data: '{}', verified: false, deleted: false, clock: [], partialSave: null, notes: [] },
          await tx.cases.nextRevision(dict, 'test'),
        ),
      );
    await write(1, 'c', 'changed');
    assert.equal((sqliteDb(store).prepare('SELECT count(*) AS n FROM webhook_outbox').get() as { n: number }).n, eventsBefore + 1);
    // A new case takes the next position of its dictionary; an update keeps its own.
    await write(1, 'new');
    await write(2, 'new');
    await write(1, 'a', 'again');
    assert.deepEqual(
      positions().filter((p) => p.guid === 'new' || p.guid === 'a' || p.guid === 'c'),
      [
        { d: 1, guid: 'a', position: 1 },
        { d: 1, guid: 'c', position: 4 },
        { d: 1, guid: 'new', position: 5 },
        { d: 2, guid: 'new', position: 2 },
      ],
    );
    // A position names one case of its dictionary.
    assert.throws(() => sqliteDb(store).prepare("UPDATE cases SET position = 1 WHERE guid = 'c'").run(), /UNIQUE/);
    await store.close();
  } finally {
    home.cleanup();
  }
});

test('0024 gives dictionaries stored before it the syncable name their JSON carries, unless it is invalid or clashes', () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 24),
    );
    const add = db.prepare(
      `INSERT INTO dictionaries (id, name, label, version, source, source_format, model, created_at, updated_at)
       VALUES (?, ?, ?, '8.1', ?, ?, '{}', 't', 't')`,
    );
    const json = (name: string, sync?: unknown) => Buffer.from(JSON.stringify({ fileType: 'dictionary', name, ...(sync ? { sync } : {}) }));
    add.run(1, 'HH_DICT', 'hh', Buffer.concat([Buffer.from('\uFEFF'), json('HH_DICT', { name: ' HOUSEHOLDS ' })]), 'json');
    add.run(2, 'PLAIN_DICT', 'plain', json('PLAIN_DICT'), 'json');
    add.run(3, 'OWN_DICT', 'own', json('OWN_DICT', { name: 'OWN_DICT' }), 'json');
    add.run(4, 'BAD_DICT', 'bad', json('BAD_DICT', { name: 'no spaces allowed' }), 'json');
    add.run(5, 'TEXT_DICT', 'text', Buffer.from('[Dictionary]\nName=TEXT_DICT\n'), 'text');
    // Two dictionaries claiming one syncable name (any case), and one claiming another dictionary's name: none gets it.
    add.run(6, 'A_DICT', 'a', json('A_DICT', { name: 'SHARED' }), 'json');
    add.run(7, 'B_DICT', 'b', json('B_DICT', { name: 'shared' }), 'json');
    add.run(8, 'C_DICT', 'c', json('C_DICT', { name: 'plain_dict' }), 'json');
    add.run(9, 'BROKEN_DICT', 'broken', Buffer.from('{"name": "BROKEN_DICT", "sync": '), 'json');
    const eventsBefore = (db.prepare('SELECT count(*) AS n FROM webhook_outbox').get() as { n: number }).n;
    migrate(db, all);
    assert.deepEqual(db.prepare('SELECT name, sync_name FROM dictionaries ORDER BY id').all(), [
      { name: 'HH_DICT', sync_name: 'HOUSEHOLDS' },
      { name: 'PLAIN_DICT', sync_name: null },
      { name: 'OWN_DICT', sync_name: null },
      { name: 'BAD_DICT', sync_name: null },
      { name: 'TEXT_DICT', sync_name: null },
      { name: 'A_DICT', sync_name: null },
      { name: 'B_DICT', sync_name: null },
      { name: 'C_DICT', sync_name: null },
      { name: 'BROKEN_DICT', sync_name: null },
    ]);
    // Nothing a webhook subscriber would see as a change of the dictionaries.
    assert.equal((db.prepare('SELECT count(*) AS n FROM webhook_outbox').get() as { n: number }).n, eventsBefore);
    // No two dictionaries share a syncable name, whatever the case.
    assert.throws(() => db.prepare("UPDATE dictionaries SET sync_name = 'households' WHERE id = 2").run(), /UNIQUE/);
    db.close();
  } finally {
    home.cleanup();
  }
});

test('0013 keeps a failed webhook delivery of an older store, with its body, ready to be redelivered', () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 13),
    );
    db.prepare(
      `INSERT INTO webhooks (id, name, url, events, secret, created_ms, created_at, updated_at) VALUES (1, 'w', 'http://127.0.0.1:1/x', '[]', 's', 0, 't', 't')`,
    ).run();
    db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event, message_id, body, state, attempts, next_attempt_ms, created_at)
       VALUES (7, 1, 'case_uploaded', 'msg_old', '{"event":"case_uploaded"}', 'failed', 4, NULL, 't')`,
    ).run();
    db.prepare(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, status, response_status, response_ms, error, retry_count, attempted_at)
       VALUES (7, 1, 'case_uploaded', 'failed', 500, 3, 'HTTP 500', 3, 'a')`,
    ).run();
    migrate(db, all);
    assert.deepEqual(db.prepare('SELECT id, message_id, body, state, attempts, redeliveries FROM webhook_deliveries').all(), [
      { id: 7, message_id: 'msg_old', body: '{"event":"case_uploaded"}', state: 'failed', attempts: 4, redeliveries: 0 },
    ]);
    assert.deepEqual(db.prepare('SELECT retry_count, redelivery FROM webhook_attempts').all(), [{ retry_count: 3, redelivery: 0 }]);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT id FROM webhook_deliveries WHERE webhook_id = 1 AND state = 'failed' ORDER BY id`)
      .all() as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join(' | '), /webhook_deliveries_failed/);
    db.close();
  } finally {
    home.cleanup();
  }
});

test('a store one migration behind is refused (STORE_NEEDS_MIGRATION), read-only too, and left untouched; migrate: true applies it', async () => {
  const home = tempDir();
  try {
    const all = loadMigrations();
    const latest = all.at(-1)!;
    // The migration before it: numbers may have gaps while branches are being merged.
    const previous = all.at(-2)!.version;
    const db = new Database(home.db);
    migrate(
      db,
      all.filter((m) => m.version < latest.version),
    );
    db.close();
    const pending = `${String(latest.version).padStart(4, '0')}-${latest.name}`;
    for (const opts of [{}, { readonly: true }, { create: true }]) {
      await assert.rejects(
        openStore(home, opts),
        (e: unknown) =>
          e instanceof AppError &&
          e.code === 'STORE_NEEDS_MIGRATION' &&
          e.exit === 3 &&
          e.message.includes(home.root) &&
          e.message.includes(`schema version ${previous}`) &&
          e.message.includes(`needs version ${latest.version}`) &&
          e.message.includes(pending) &&
          JSON.stringify(e.details) === JSON.stringify({ home: home.root, version: previous, needs: latest.version, pending: [pending] }),
        JSON.stringify(opts),
      );
    }
    // Refused before any write: no folder of the layout was added, the version is where it was.
    assert.deepEqual(readdirSync(home.root).sort(), ['sds.db']);
    const status = await readSchemaStatus(home);
    assert.equal(status.version, previous);
    assert.equal(status.latest, latest.version);
    assert.deepEqual(status.pending, [pending]);
    assert.deepEqual(status.migrations.at(-1), { version: latest.version, name: latest.name, state: 'pending' });
    assert.ok(status.migrations.slice(0, -1).every((m) => m.state === 'applied'));

    const store = await openStore(home, { migrate: true });
    assert.deepEqual(store.migration, { from: previous, to: latest.version, applied: [pending] });
    await store.close();
    const again = await openStore(home);
    assert.deepEqual(again.migration, { from: latest.version, to: latest.version, applied: [] });
    await again.close();
  } finally {
    home.cleanup();
  }
});

test('an empty store left by an init that stopped before its first migration: other opens refuse it, create finishes it', async () => {
  const home = tempDir();
  try {
    writeFileSync(home.db, '');
    await assert.rejects(
      openStore(home),
      (e: unknown) => e instanceof AppError && e.code === 'STORE_NEEDS_MIGRATION' && (e.details as { version: number }).version === 0,
    );
    const store = await openStore(home, { create: true });
    assert.equal(store.migration.from, 0);
    assert.equal(store.migration.to, loadMigrations().at(-1)!.version);
    await store.close();
  } finally {
    home.cleanup();
  }
});
