/**
 * `store.cases.keyOrderPage` (docs/export.md#row-order): the cases changed in a revision range,
 * in case-key order then guid, a keyset page at a time, on the SQLite and the PostgreSQL store
 * alike (byte order of the key: PostgreSQL's text is COLLATE "C").
 */
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { CaseWrite } from '../../../src/store/cases-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const NOW = '2026-01-02T03:04:05.678Z';

async function dictionary(store: Store, name: string): Promise<number> {
  const model = { name } as unknown as Dictionary;
  const saved = await store.dictionaries.save({
    name,
    label: name,
    version: '8.0',
    description: '',
    source: Buffer.from(`[Dictionary]\nName=${name}\n`),
    sourceFormat: 'text',
    syncName: null,
    model,
  });
  return saved.row.id;
}

function write(guid: string, caseKey: string, deleted = false): CaseWrite {
  return {
    guid,
    caseKey,
    label: `label ${caseKey}`,
    data: `{"id":"${caseKey}"}`,
    verified: false,
    deleted,
    clock: [],
    partialSave: null,
    notes: [],
  };
}

testOnBothStores('cases: key-order pages of a revision range, by case key then guid', async (store) => {
  const dict = await dictionary(store, 'D');
  const other = await dictionary(store, 'E');
  const r1 = await store.cases.nextRevision(dict, 't');
  const r2 = await store.cases.nextRevision(dict, 't');
  const r3 = await store.cases.nextRevision(dict, 't');
  // Revision and guid order (d, a, c, b, e) is not key order; keys compare byte by byte
  // (' 1' < '01' < 'B' < 'a', which a locale collation would order otherwise).
  await store.cases.upsert(dict, write('d', 'a'), r1, NOW);
  await store.cases.upsert(dict, write('a', 'B'), r1, NOW);
  await store.cases.upsert(dict, write('c', '01'), r2, NOW);
  await store.cases.upsert(dict, write('b', ' 1', true), r2, NOW);
  await store.cases.upsert(dict, write('e', '01'), r3, NOW);
  await store.cases.upsert(other, write('z', '00'), r1, NOW);
  const start = { caseKey: '', guid: '' };
  const keys = (page: { guid: string; caseKey: string }[]) => page.map((c) => [c.caseKey, c.guid]);

  assert.deepEqual(keys(await store.cases.keyOrderPage(dict, start, 0, r3, 10, false)), [
    [' 1', 'b'],
    ['01', 'c'],
    ['01', 'e'],
    ['B', 'a'],
    ['a', 'd'],
  ]);
  // Keyset pages of 2 walk the same order without repeating or skipping a case.
  const pages: string[][][] = [];
  let after = start;
  for (;;) {
    const page = await store.cases.keyOrderPage(dict, after, 0, r3, 2, false);
    if (page.length === 0) break;
    pages.push(keys(page) as string[][]);
    after = { caseKey: page.at(-1)!.caseKey, guid: page.at(-1)!.guid };
  }
  assert.deepEqual(pages, [
    [
      [' 1', 'b'],
      ['01', 'c'],
    ],
    [
      ['01', 'e'],
      ['B', 'a'],
    ],
    [['a', 'd']],
  ]);
  assert.deepEqual(keys(await store.cases.keyOrderPage(dict, start, 0, r3, 10, true)), [
    ['01', 'c'],
    ['01', 'e'],
    ['B', 'a'],
    ['a', 'd'],
  ]);
  // Changed after r1, up to r2: only revision r2.
  assert.deepEqual(keys(await store.cases.keyOrderPage(dict, start, r1, r2, 10, false)), [
    [' 1', 'b'],
    ['01', 'c'],
  ]);
  const page = await store.cases.keyOrderPage(dict, { caseKey: 'B', guid: 'a' }, 0, r3, 10, false);
  assert.deepEqual(page, [
    {
      guid: 'd',
      caseKey: 'a',
      label: 'label a',
      modifiedAt: NOW,
      verified: false,
      deleted: false,
      data: '{"id":"a"}',
      revision: r1,
      notes: [],
    },
  ]);
});
