/**
 * The store contract of `store.appPackages` (docs/architecture.md#the-store-contract): every
 * method on both stores with the same answers, and two saves of one package at once reporting
 * one change (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppPackageRow } from '../../../src/store/app-packages-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

type NewPackage = Omit<AppPackageRow, 'importedAt' | 'updatedAt'>;

const pkg = (name: string, extra: Partial<NewPackage> = {}): NewPackage => ({
  name,
  description: 'A survey',
  version: '1.0',
  files: '[{"path":"survey.pen"}]',
  signature: 'ab'.repeat(16),
  buildTime: '2024-05-01T10:00:00Z',
  zipSize: 1234,
  zipMd5: 'cd'.repeat(16),
  source: 'deploy',
  ...extra,
});

testOnBothStores('appPackages: save, find, list and remove', async (store) => {
  assert.equal(await store.appPackages.find('survey'), undefined);
  assert.deepEqual(await store.appPackages.list(), []);
  assert.equal(await store.appPackages.remove('survey'), false);

  assert.equal(await store.appPackages.save(pkg('survey')), true);
  const first = (await store.appPackages.find('survey'))!;
  assert.match(first.importedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(first, { ...pkg('survey'), importedAt: first.importedAt, updatedAt: first.importedAt });

  // The same metadata again changes nothing, not even the update time.
  await sleep(5);
  assert.equal(await store.appPackages.save(pkg('survey')), false);
  assert.deepEqual(await store.appPackages.find('survey'), first);

  // Each field, nulls included, counts as a change; the import time stays.
  const changes: Partial<NewPackage>[] = [
    { description: null },
    { description: 'Other' },
    { version: null },
    { files: null },
    { signature: null },
    { buildTime: '2024-05-02T10:00:00Z' },
    { zipSize: 2 ** 33 },
    { zipMd5: 'ef'.repeat(16) },
    { source: 'csweb-import' },
  ];
  let previous = first;
  for (const change of changes) {
    await sleep(2);
    assert.equal(await store.appPackages.save(pkg('survey', change)), true, JSON.stringify(change));
    const now = (await store.appPackages.find('survey'))!;
    assert.deepEqual(now, { ...pkg('survey', change), importedAt: first.importedAt, updatedAt: now.updatedAt });
    assert.ok(now.updatedAt > previous.updatedAt);
    assert.equal(await store.appPackages.save(pkg('survey', change)), false);
    previous = now;
  }
  const allNull = pkg('survey', { description: null, version: null, files: null, signature: null });
  assert.equal(await store.appPackages.save(allNull), true);
  assert.equal(await store.appPackages.save(allNull), false);

  for (const name of ['b', 'B', 'a', 'é']) assert.equal(await store.appPackages.save(pkg(name)), true);
  assert.deepEqual(
    (await store.appPackages.list()).map((p) => p.name),
    ['B', 'a', 'b', 'survey', 'é'],
  );
  assert.equal(await store.appPackages.remove('b'), true);
  assert.equal(await store.appPackages.remove('b'), false);

  await assert.rejects(
    store.transaction(async (tx) => {
      assert.equal(await tx.appPackages.save(pkg('tx')), true);
      assert.equal(await tx.appPackages.save(pkg('tx')), false);
      assert.equal((await tx.appPackages.find('tx'))!.name, 'tx');
      assert.equal(await tx.appPackages.remove('a'), true);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(await store.appPackages.find('tx'), undefined);
  assert.deepEqual(
    (await store.appPackages.list()).map((p) => p.name),
    ['B', 'a', 'survey', 'é'],
  );
});

testOnBothStores('appPackages: two saves of one new package at once, one change', async (store) => {
  let firstSaved!: () => void;
  const saved = new Promise<void>((resolve) => (firstSaved = resolve));
  const first = store.transaction(async (tx) => {
    const changed = await tx.appPackages.save(pkg('race'));
    firstSaved();
    await sleep(300);
    return changed;
  });
  await saved;
  const second = store.appPackages.save(pkg('race'));
  assert.deepEqual(await Promise.all([first, second]), [true, false]);
  assert.equal((await store.appPackages.list()).length, 1);
});
