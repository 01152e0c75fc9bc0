/**
 * The dictionary row kept between requests on the SQLite store (docs/decisions.md, "The dictionary
 * row kept between requests"): `resolveWithModel` reads the row again only when the table may have
 * changed, which `SqliteTableChanges` tells from SQLite's data_version and temporary triggers, on a
 * real store file, with a second real connection as another process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database, { type Statement } from 'better-sqlite3';
import { openStore } from '../../../src/store/open-store.js';
import type { SqliteStore } from '../../../src/store/sqlite-store.js';
import { SqliteTableChanges } from '../../../src/store/sqlite-table-changes.js';
import { sqliteDb, tempDir } from '../../helpers/temp-home.js';
import { householdVersion, versionIn } from '../../helpers/dictionary-versions.js';

async function sqliteStore(): Promise<SqliteStore> {
  return (await openStore(tempDir(), { create: true })) as SqliteStore;
}

test('a table-changes mark moves with every change of the table and stays put otherwise', async () => {
  const store = await sqliteStore();
  const db = sqliteDb(store);
  const other = new Database(db.name);
  try {
    // A table of its own: the store's dictionaries repository keeps its own watch on `dictionaries`.
    db.exec('CREATE TABLE watched (id INTEGER PRIMARY KEY, v TEXT)');
    const changes = new SqliteTableChanges(db, 'watched');
    const first = changes.mark();
    assert.equal(typeof first, 'string');
    assert.equal(changes.mark(), first, 'nothing changed');
    await store.transaction((tx) => tx.settings.set('probe', '1'));
    assert.equal(changes.mark(), first, "this connection's writes to other tables leave it");

    const seen = new Set([first]);
    const moved = (why: string) => {
      const m = changes.mark();
      assert.ok(!seen.has(m), why);
      seen.add(m);
    };
    const second = new SqliteTableChanges(db, 'watched');
    const secondFirst = second.mark();
    db.prepare('INSERT INTO watched (v) VALUES (?)').run('a');
    moved('an insert by this connection, not through any repository');
    assert.notEqual(second.mark(), secondFirst, 'a second watch of the same connection sees it too');
    db.prepare('UPDATE watched SET v = ?').run('b');
    moved('an update');
    db.prepare('DELETE FROM watched').run();
    moved('a delete');
    db.prepare('UPDATE watched SET v = ?').run('none');
    assert.equal(changes.mark(), [...seen].at(-1), 'an update of no row changes nothing');

    other.prepare('INSERT INTO watched (v) VALUES (?)').run('c');
    moved('a commit of another connection');
    other.prepare('CREATE TABLE elsewhere (x)').run();
    moved('any commit of another connection: cautious');

    db.exec('BEGIN');
    db.prepare('INSERT INTO watched (v) VALUES (?)').run('d');
    assert.equal(changes.mark(), undefined, 'inside a transaction there is no mark');
    db.exec('ROLLBACK');
    moved('a rolled-back change: cautious');
  } finally {
    other.close();
    await store.close();
  }
});

test('resolveWithModel reads the row once while the table is unchanged, and anew after any change', async () => {
  const store = await sqliteStore();
  const db = sqliteDb(store);
  // The statement that reads the row and its model text, counted where it runs.
  const repo = (store as unknown as { repos: { dictionaries: { modelByEitherName: Statement } } }).repos.dictionaries;
  const statement = repo.modelByEitherName;
  const get = statement.get.bind(statement);
  let reads = 0;
  statement.get = ((...args: unknown[]) => {
    reads += 1;
    return get(...args);
  }) as typeof statement.get;
  const other = new Database(db.name);
  try {
    await store.dictionaries.save(householdVersion('v1'));
    const first = await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT');
    assert.equal(versionIn(first), 'v1');
    assert.equal(reads, 1);
    // Uploads' own writes on this connection, between requests.
    await store.transaction((tx) => tx.settings.set('probe', '1'));
    const again = await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT');
    assert.equal(reads, 1, 'not read again');
    assert.equal(again?.model, first?.model, 'the same model');
    assert.notEqual(again, first, 'a record of its own for each caller');
    again!.label = 'changed by a caller';
    assert.equal((await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT'))?.label, 'household');
    assert.equal((await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC'))?.name, 'HOUSEHOLD_DICT');
    assert.equal(reads, 2, 'the syncable name read once too');
    assert.equal(await store.dictionaries.resolveWithModel('NO_SUCH_DICT'), undefined);
    assert.equal(await store.dictionaries.resolveWithModel('NO_SUCH_DICT'), undefined);
    assert.equal(reads, 4, 'a name of no dictionary is read each time');

    // Changed on this connection by SQL of no repository: the temporary trigger sees it.
    db.prepare('UPDATE dictionaries SET model = ? WHERE name = ?').run(
      JSON.stringify({ name: 'HOUSEHOLD_DICT', label: 'v2' }),
      'HOUSEHOLD_DICT',
    );
    assert.equal(versionIn(await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v2');
    // Changed by another process.
    other
      .prepare('UPDATE dictionaries SET model = ? WHERE name = ?')
      .run(JSON.stringify({ name: 'HOUSEHOLD_DICT', label: 'v3' }), 'HOUSEHOLD_DICT');
    assert.equal(versionIn(await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC')), 'v3');
    // Removed by another process.
    other.prepare('DELETE FROM dictionaries WHERE name = ?').run('HOUSEHOLD_DICT');
    assert.equal(await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT'), undefined);
  } finally {
    other.close();
    await store.close();
  }
});
