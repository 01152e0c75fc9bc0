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

test('store pages: the case list and a sync chunk stop at the byte budget, reading sizes without the text', (t) => {
  const home = tempHome();
  const store = openStore(home);
  t.after(() => {
    store.close();
    home.cleanup();
  });
  const file = fixture('popstan-census.json.dcf');
  uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
  const dictId = store.dictionaries.list()[0]!.id;
  const labels = [1000, 1000, 5000, 10, 10];
  const base: Omit<CaseWrite, 'guid' | 'caseKey' | 'label'> = {
    data: '{}',
    verified: false,
    deleted: false,
    clock: [],
    partialSave: null,
    notes: [],
  };
  store.transaction(() => {
    const r = store.cases.nextRevision(dictId, 'test');
    labels.forEach((n, i) =>
      store.cases.upsert(
        dictId,
        { ...base, guid: `0000000${i}-0000-4000-8000-000000000000`, caseKey: `k${i}`, label: 'x'.repeat(n) },
        r,
        't',
      ),
    );
  });
  assert.deepEqual(
    store.cases.page(dictId, 100, 0, 2200).map((c) => c.caseKey),
    ['k0', 'k1'],
  );
  assert.deepEqual(
    store.cases.page(dictId, 100, 2, 2200).map((c) => c.caseKey),
    ['k2'],
    'one row over the budget alone',
  );
  assert.deepEqual(
    store.cases.page(dictId, 100, 3, 2200).map((c) => c.caseKey),
    ['k3', 'k4'],
  );
  assert.equal(store.cases.page(dictId, 100, 0).length, 5, 'no budget: the count alone');
  assert.deepEqual(store.cases.page(dictId, 100, 5, 2200), []);

  const range = { after: { revision: 0, guid: '~' }, upTo: 1e9, universe: '', excludeRevisions: [] };
  const first = store.sync.chunkWithin(dictId, range, 100, 2400);
  assert.deepEqual([first.cases.map((c) => c.caseKey), first.seen], [['k0', 'k1'], 5]);
  const limited = store.sync.chunkWithin(dictId, range, 3, 1e6);
  assert.deepEqual([limited.cases.length, limited.seen], [3, 3]);
});
