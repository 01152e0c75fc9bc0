/**
 * The store contract of `store.binaryItems` (docs/architecture.md#the-store-contract): which case
 * holds which binary item, on the SQLite and the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-02-01T00:00:00Z';
const sig = (c: string) => c.repeat(32);

/** Dictionary D with cases c1, c2, c3 and dictionary E with c1 (binary-item rows need their case). */
async function fill(store: Store): Promise<{ dict: number; other: number }> {
  const ids: number[] = [];
  for (const name of ['D', 'E']) {
    const model = { name } as unknown as Dictionary;
    const source = Buffer.from(name);
    ids.push(
      (
        await store.dictionaries.save({
          name,
          label: name,
          version: '8',
          description: '',
          source,
          sourceFormat: 'text',
          syncName: null,
          model,
        })
      ).row.id,
    );
  }
  const [dict, other] = ids as [number, number];
  await store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(dict, 't');
    const blank = { label: '', data: '{}', verified: false, deleted: false, clock: [], partialSave: null, notes: [] };
    for (const guid of ['c1', 'c2', 'c3']) await tx.cases.upsert(dict, { guid, caseKey: guid, ...blank }, r);
    await tx.cases.upsert(other, { guid: 'c1', caseKey: 'c1', ...blank }, r);
  });
  return { dict, other };
}

testOnBothStores('binaryItems: replacing a case’s rows, reading them by case and counting holders', async (store) => {
  const { dict, other } = await fill(store);
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c1'), []);
  await store.binaryItems.replaceForCase(dict, 'c1', [
    { signature: sig('b'), size: 10, modifiedTime: T1 },
    { signature: sig('a'), size: null, modifiedTime: T1 },
  ]);
  await store.binaryItems.replaceForCase(dict, 'c2', [{ signature: sig('a'), size: 5, modifiedTime: T1 }]);
  await store.binaryItems.replaceForCase(other, 'c1', [{ signature: sig('a'), size: 5, modifiedTime: T1 }]);
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c1'), [
    { caseGuid: 'c1', signature: sig('a'), size: null, modifiedTime: T1 },
    { caseGuid: 'c1', signature: sig('b'), size: 10, modifiedTime: T1 },
  ]);
  assert.equal(await store.binaryItems.casesHolding(dict, sig('a')), 2);
  assert.equal(await store.binaryItems.casesHolding(dict, sig('b')), 1);
  assert.equal(await store.binaryItems.casesHolding(dict, sig('z')), 0);
  assert.equal(await store.binaryItems.casesHolding(other, sig('a')), 1);

  // A new list replaces the old: a dropped one goes, a kept one takes its new values, a signature
  // listed twice keeps the last.
  await store.binaryItems.replaceForCase(dict, 'c1', [
    { signature: sig('a'), size: 7, modifiedTime: T2 },
    { signature: sig('c'), size: 1, modifiedTime: T1 },
    { signature: sig('c'), size: 2, modifiedTime: T2 },
  ]);
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c1'), [
    { caseGuid: 'c1', signature: sig('a'), size: 7, modifiedTime: T2 },
    { caseGuid: 'c1', signature: sig('c'), size: 2, modifiedTime: T2 },
  ]);
  assert.equal(await store.binaryItems.casesHolding(dict, sig('b')), 0);

  const byCase = await store.binaryItems.forCases(dict, ['c3', 'c2', 'c1', 'nope']);
  assert.deepEqual([...byCase.keys()], ['c1', 'c2'], 'cases in guid order; none for a case without rows');
  assert.deepEqual(byCase.get('c2'), [{ caseGuid: 'c2', signature: sig('a'), size: 5, modifiedTime: T1 }]);
  assert.equal(byCase.get('c1')!.length, 2);
  assert.equal((await store.binaryItems.forCases(dict, [])).size, 0);

  await store.binaryItems.replaceForCase(dict, 'c1', []);
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c1'), []);
  assert.deepEqual(await store.binaryItems.forCase(other, 'c1'), [{ caseGuid: 'c1', signature: sig('a'), size: 5, modifiedTime: T1 }]);
});

testOnBothStores('binaryItems: replaceForCases replaces several cases as one replace after the other would', async (store) => {
  const { dict } = await fill(store);
  await store.binaryItems.replaceForCase(dict, 'c1', [{ signature: sig('a'), size: 1, modifiedTime: T1 }]);
  await store.binaryItems.replaceForCase(dict, 'c3', [{ signature: sig('z'), size: 9, modifiedTime: T1 }]);
  await store.binaryItems.replaceForCases(dict, [
    { guid: 'c1', items: [{ signature: sig('b'), size: 2, modifiedTime: T2 }] },
    {
      guid: 'c2',
      items: [
        { signature: sig('a'), size: 3, modifiedTime: T2 },
        { signature: sig('a'), size: 4, modifiedTime: T2 },
      ],
    },
    { guid: 'c1', items: [{ signature: sig('c'), size: null, modifiedTime: T2 }] },
  ]);
  await store.binaryItems.replaceForCases(dict, []);
  const all = await store.binaryItems.forCases(dict, ['c1', 'c2', 'c3']);
  assert.deepEqual(Object.fromEntries([...all].map(([g, rows]) => [g, rows.map((r) => [r.signature[0], r.size, r.modifiedTime])])), {
    c1: [['c', null, T2]],
    c2: [['a', 4, T2]],
    c3: [['z', 9, T1]],
  });
  await store.binaryItems.replaceForCases(dict, [{ guid: 'c3', items: [] }]);
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c3'), []);
});

testOnBothStores('binaryItems: a replace in a transaction that fails leaves the rows as they were', async (store) => {
  const { dict } = await fill(store);
  await store.binaryItems.replaceForCase(dict, 'c1', [{ signature: sig('a'), size: 1, modifiedTime: T1 }]);
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.binaryItems.replaceForCase(dict, 'c1', [{ signature: sig('b'), size: 2, modifiedTime: T2 }]);
      assert.deepEqual(
        (await tx.binaryItems.forCases(dict, ['c1'])).get('c1')!.map((i) => i.signature),
        [sig('b')],
      );
      throw new Error('stop');
    }),
    /stop/,
  );
  assert.deepEqual(await store.binaryItems.forCase(dict, 'c1'), [{ caseGuid: 'c1', signature: sig('a'), size: 1, modifiedTime: T1 }]);
  // Rows belong to a stored case: none for a case the store does not hold.
  await assert.rejects(store.binaryItems.replaceForCase(dict, 'missing', [{ signature: sig('a'), size: 1, modifiedTime: T1 }]));
});
