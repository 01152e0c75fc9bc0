import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../src/store/open-store.js';
import { fitting, type CaseWrite } from '../../../src/store/cases-repo.js';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

test('fitting: the leading rows within the budget, at least one, none of none', () => {
  const s = (...n: number[]) => n.map((size) => ({ size }));
  assert.equal(fitting(s(), 10), 0);
  assert.equal(fitting(s(50), 10), 1, 'one row over the budget alone is still sent');
  assert.equal(fitting(s(5, 5, 1), 10), 2);
  assert.equal(fitting(s(5, 5), 10), 2, 'exactly the budget fits');
  assert.equal(fitting(s(1, 2, 3), 100), 3);
});

test('store pages: the case list and a sync chunk stop at the byte budget, reading sizes without the text', async (t) => {
  const home = await tempHome();
  const store = await openStore(home);
  t.after(async () => {
    await store.close();
    await home.cleanup();
  });
  const file = fixture('popstan-census.json.dcf');
  await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
  const dictId = (await store.dictionaries.list())[0]!.id;
  const labels = [1000, 1000, 5000, 10, 10];
  const base: Omit<CaseWrite, 'guid' | 'caseKey' | 'label'> = {
    data: '{}',
    verified: false,
    deleted: false,
    clock: [],
    partialSave: null,
    notes: [],
  };
  await store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(dictId, 'test');
    for (const [i, n] of labels.entries()) {
      await tx.cases.upsert(
        dictId,
        { ...base, guid: `0000000${i}-0000-4000-8000-000000000000`, caseKey: `k${i}`, label: 'x'.repeat(n) },
        r,
        't',
      );
    }
  });
  const keys = async (offset: number) => (await store.cases.page(dictId, 100, offset, 2200)).map((c) => c.caseKey);
  assert.deepEqual(await keys(0), ['k0', 'k1']);
  assert.deepEqual(await keys(2), ['k2'], 'one row over the budget alone');
  assert.deepEqual(await keys(3), ['k3', 'k4']);
  assert.equal((await store.cases.page(dictId, 100, 0)).length, 5, 'no budget: the count alone');
  assert.deepEqual(await store.cases.page(dictId, 100, 5, 2200), []);

  const range = { after: { revision: 0, guid: '~' }, upTo: 1e9, universe: '', excludeRevisions: [] };
  const first = await store.sync.chunkWithin(dictId, range, 100, 2400);
  assert.deepEqual([first.cases.map((c) => c.caseKey), first.seen], [['k0', 'k1'], 5]);
  const limited = await store.sync.chunkWithin(dictId, range, 3, 1e6);
  assert.deepEqual([limited.cases.length, limited.seen], [3, 3]);
});
