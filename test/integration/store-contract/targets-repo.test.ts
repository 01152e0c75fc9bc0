/**
 * The targets repository through the store contract (docs/architecture.md#the-store-contract):
 * every method on the SQLite store and on the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import type { Store } from '../../../src/store/open-store.js';
import type { TargetRow } from '../../../src/store/targets-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The id of a dictionary uploaded to `store` (its target's key). */
async function dictionaryId(store: Store, file: string, label: string): Promise<number> {
  const reply = await uploadDictionary(store, { source: readFileSync(new URL(`../../../fixtures/cspro/${file}`, import.meta.url)), label });
  return (await store.dictionaries.find(reply.name))!.id;
}

const postgres: Omit<TargetRow, 'createdAt' | 'updatedAt'> = {
  type: 'postgresql',
  url: null,
  host: 'db.example.org',
  port: 5433,
  database: 'survey',
  username: 'sds',
  passwordEnv: 'SURVEY_DB_PASSWORD',
  file: null,
  foreignKeys: true,
  tlsMode: 'verify-full',
  tlsCa: '/etc/ssl/ca.pem',
  tlsCert: '/etc/ssl/client.pem',
  tlsKey: '/etc/ssl/client.key',
};

testOnBothStores('targets: get, set (insert and replace) and clear', async (store) => {
  const a = await dictionaryId(store, 'simple-capi.dcf', 'Simple');
  const b = await dictionaryId(store, 'two-level.json.dcf', 'TwoLevel');
  assert.equal(await store.targets.get(a), undefined);

  await store.targets.set(a, postgres);
  const first = (await store.targets.get(a))!;
  assert.match(first.createdAt, ISO);
  assert.deepEqual(first, { ...postgres, createdAt: first.createdAt, updatedAt: first.createdAt });
  assert.equal(typeof first.port, 'number');
  assert.equal(await store.targets.get(b), undefined, 'one target per dictionary');

  const sqlite: Omit<TargetRow, 'createdAt' | 'updatedAt'> = {
    type: 'sqlite',
    url: null,
    host: null,
    port: null,
    database: null,
    username: null,
    passwordEnv: null,
    file: '/srv/sds/breakout.sqlite',
    foreignKeys: false,
    tlsMode: null,
    tlsCa: null,
    tlsCert: null,
    tlsKey: null,
  };
  await store.targets.set(a, sqlite);
  const second = (await store.targets.get(a))!;
  assert.deepEqual(second, { ...sqlite, createdAt: first.createdAt, updatedAt: second.updatedAt }, 'every field replaced, created kept');
  assert.ok(second.updatedAt >= first.updatedAt);

  await store.targets.set(b, { ...postgres, type: 'mysql', url: 'mysql://sds@db/survey', host: null, port: null });
  assert.equal((await store.targets.get(b))!.url, 'mysql://sds@db/survey');

  assert.equal(await store.targets.clear(a), true);
  assert.equal(await store.targets.clear(a), false);
  assert.equal(await store.targets.get(a), undefined);
  assert.ok(await store.targets.get(b), 'the other target stays');

  await assert.rejects(store.targets.set(a + b + 1000, postgres), 'a target of no dictionary is refused');
  await store.dictionaries.delete(b);
  assert.equal(await store.targets.get(b), undefined, 'a target goes with its dictionary');
});

testOnBothStores('targets: a target set in a transaction commits or rolls back with it', async (store) => {
  const a = await dictionaryId(store, 'simple-capi.dcf', 'Simple');
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.targets.set(a, postgres);
      assert.equal((await tx.targets.get(a))!.host, 'db.example.org');
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.equal(await store.targets.get(a), undefined);
  await store.transaction(async (tx) => {
    await tx.targets.set(a, postgres);
    assert.equal(await tx.targets.clear(a), true);
    await tx.targets.set(a, { ...postgres, port: 6543 });
  });
  assert.equal((await store.targets.get(a))!.port, 6543);
});
