/**
 * The store contract of `store.caseQueries` (docs/sync.md#the-81-data-source): every query
 * shape (status, filter, order, paging) on the SQLite and the PostgreSQL store, with the same
 * answers, keys compared byte-wise on both.
 */
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { CaseQuery, CaseQueryOperator } from '../../../src/store/case-query-sql.js';
import type { CaseWrite } from '../../../src/store/cases-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const NOW = '2026-01-02T03:04:05.678Z';

/** [guid, key, deleted, partial] in the order written: positions 1, 2, … */
const CASES: [string, string, boolean, boolean][] = [
  ['g-a', 'A01', false, false],
  ['g-b', 'A02', true, false],
  ['g-c', 'A01', false, false],
  ['g-d', 'B01', false, true],
  ['g-e', 'é1', false, false],
  ['g-f', 'A02', false, false],
  ['g-g', 'a01', false, false],
];

function writeOf([guid, caseKey, deleted, partial]: (typeof CASES)[number]): CaseWrite {
  return {
    guid,
    caseKey,
    label: `label ${caseKey}`,
    data: `{"id":"${caseKey}","x":"ü"}`,
    verified: guid === 'g-a',
    deleted,
    clock: [{ deviceId: 'dev', revision: 1 }],
    partialSave: partial ? { mode: 'add' } : null,
    notes: guid === 'g-c' ? [{ content: 'n' } as never] : [],
    ...(guid === 'g-e' ? { caseNote: 'note' } : {}),
  };
}

/** A dictionary D holding CASES, and one E whose own A01 no case of D duplicates. */
async function fill(store: Store): Promise<{ dict: number; revision: number }> {
  const save = (name: string) =>
    store.dictionaries.save({
      name,
      label: name,
      version: '8.0',
      description: '',
      source: Buffer.from(name),
      sourceFormat: 'text',
      syncName: null,
      model: { name } as unknown as Dictionary,
    });
  const dict = (await save('D')).row.id;
  const other = (await save('E')).row.id;
  const revision = await store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(dict, 'test');
    for (const c of CASES) await tx.cases.upsert(dict, writeOf(c), r, NOW);
    await tx.cases.upsert(other, writeOf(CASES[0]!), r, NOW);
    return r;
  });
  return { dict, revision };
}

const q = (more: Partial<CaseQuery> = {}): CaseQuery => ({ status: 'all', order: 'position', ascending: true, ...more });

async function guids(store: Store, dict: number, query: CaseQuery, limit = 100, offset = 0): Promise<string[]> {
  return (await store.caseQueries.identifiers(dict, query, limit, offset)).map((r) => r.guid);
}

testOnBothStores('caseQueries: statuses count and select alike', async (store) => {
  const { dict } = await fill(store);
  assert.equal(await store.caseQueries.count(dict, q()), 7);
  assert.equal(await store.caseQueries.count(dict, q({ status: 'notDeletedOnly' })), 6);
  assert.equal(await store.caseQueries.count(dict, q({ status: 'partialsOnly' })), 1);
  assert.equal(await store.caseQueries.count(dict, q({ status: 'duplicatesOnly' })), 2);
  assert.equal(await store.caseQueries.count(999, q()), 0);
  assert.deepEqual(await guids(store, dict, q({ status: 'notDeletedOnly' })), ['g-a', 'g-c', 'g-d', 'g-e', 'g-f', 'g-g']);
  assert.deepEqual(await guids(store, dict, q({ status: 'partialsOnly' })), ['g-d']);
  // A02 is a duplicate only with its deleted copy: not one.
  assert.deepEqual(await guids(store, dict, q({ status: 'duplicatesOnly' })), ['g-a', 'g-c']);
});

testOnBothStores('caseQueries: key order is byte order with ties by position, both ways, paged', async (store) => {
  const { dict } = await fill(store);
  const up = ['g-a', 'g-c', 'g-b', 'g-f', 'g-d', 'g-g', 'g-e'];
  assert.deepEqual(await guids(store, dict, q({ order: 'key' })), up);
  assert.deepEqual(await guids(store, dict, q({ order: 'key', ascending: false })), [...up].reverse());
  assert.deepEqual(await guids(store, dict, q({ order: 'key' }), 3, 2), ['g-b', 'g-f', 'g-d']);
  assert.deepEqual(await guids(store, dict, q({ ascending: false }), 2, 1), ['g-f', 'g-e']);
  assert.deepEqual(await guids(store, dict, q(), 5, 7), []);
});

testOnBothStores('caseQueries: filters on key, position and uuid with every operator', async (store) => {
  const { dict } = await fill(store);
  const key = (operator: CaseQueryOperator, value: string) =>
    guids(store, dict, q({ order: 'key', filter: { field: 'key', operator, value } }));
  assert.deepEqual(await key('=', 'A01'), ['g-a', 'g-c']);
  assert.deepEqual(await key('=', 'a01'), ['g-g'], 'keys compare with their case');
  assert.deepEqual(await key('startswith', 'A0'), ['g-a', 'g-c', 'g-b', 'g-f']);
  assert.deepEqual(await key('startswith', 'é'), ['g-e']);
  assert.deepEqual(await key('startswith', ''), ['g-a', 'g-c', 'g-b', 'g-f', 'g-d', 'g-g', 'g-e']);
  assert.deepEqual(await key('startswith', '\u{10FFFF}'), [], 'a prefix with no upper bound');
  assert.deepEqual(await key('<', 'B01'), ['g-a', 'g-c', 'g-b', 'g-f']);
  assert.deepEqual(await key('<=', 'B01'), ['g-a', 'g-c', 'g-b', 'g-f', 'g-d']);
  assert.deepEqual(await key('>', 'a01'), ['g-e']);
  assert.deepEqual(await key('>=', 'a01'), ['g-g', 'g-e']);
  const position = (operator: '=' | '<' | '<=' | '>=' | '>', value: number) =>
    guids(store, dict, q({ status: 'notDeletedOnly', filter: { field: 'position', operator, value } }));
  assert.deepEqual(await position('=', 5), ['g-e']);
  assert.deepEqual(await position('<', 3), ['g-a']);
  assert.deepEqual(await position('<=', 3), ['g-a', 'g-c']);
  assert.deepEqual(await position('>=', 6), ['g-f', 'g-g']);
  assert.deepEqual(await position('>', 7), []);
  assert.deepEqual(await guids(store, dict, q({ filter: { field: 'uuid', operator: '=', value: 'g-c' } })), ['g-c']);
  assert.equal(
    await store.caseQueries.count(dict, q({ status: 'notDeletedOnly', filter: { field: 'key', operator: 'startswith', value: 'A0' } })),
    3,
  );
});

testOnBothStores('caseQueries: identifiers, summaries, sizes and whole cases of a page', async (store) => {
  const { dict, revision } = await fill(store);
  const page = q({ order: 'key', filter: { field: 'key', operator: 'startswith', value: 'A0' } });
  assert.deepEqual(await store.caseQueries.identifiers(dict, page, 2, 0), [
    { guid: 'g-a', caseKey: 'A01', position: 1, revision },
    { guid: 'g-c', caseKey: 'A01', position: 3, revision },
  ]);
  const summaries = await store.caseQueries.summaries(dict, q(), 100, 0);
  assert.equal(summaries.length, 7);
  assert.deepEqual(summaries[0], {
    guid: 'g-a',
    caseKey: 'A01',
    position: 1,
    revision,
    label: 'label A01',
    deleted: false,
    verified: true,
    partialSave: null,
    notes: [],
    caseNote: null,
  });
  assert.deepEqual(
    summaries.map((s) => [s.deleted, s.partialSave, s.notes.length, s.caseNote]),
    [
      [false, null, 0, null],
      [true, null, 0, null],
      [false, null, 1, null],
      [false, { mode: 'add' }, 0, null],
      [false, null, 0, 'note'],
      [false, null, 0, null],
      [false, null, 0, null],
    ],
  );
  // The stored text's bytes in UTF-8: é and ü are two each.
  const expected = CASES.map((c) => {
    const w = writeOf(c);
    const texts = [w.guid, w.caseKey, w.label, w.data, JSON.stringify(w.clock), w.notes.length ? JSON.stringify(w.notes) : '[]'];
    if (w.partialSave) texts.push(JSON.stringify(w.partialSave));
    if (w.caseNote) texts.push(w.caseNote);
    return texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  });
  assert.deepEqual(await store.caseQueries.sizes(dict, q(), 100, 0), expected);
  assert.deepEqual(await store.caseQueries.sizes(dict, q(), 2, 3), expected.slice(3, 5));

  const whole = await store.readTransaction((tx) => tx.caseQueries.cases(dict, q({ status: 'notDeletedOnly' }), 2, 3));
  assert.deepEqual(
    whole,
    [CASES[4]!, CASES[5]!].map((c, i) => ({ ...writeOf(c), revision, createdAt: NOW, modifiedAt: NOW, position: 5 + i })),
  );
  assert.deepEqual(await store.caseQueries.cases(dict, q(), 10, 7), []);
});
