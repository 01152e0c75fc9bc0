/**
 * The writes of the store's cases, on a real store (docs/architecture.md#where-cases-are-written):
 * the merge of uploads and imports and the CSWeb import's "replace as it is" see the same content
 * change, a case note included; each path keeps its own rule for clocks and revisions; text a
 * UTF-8 column cannot hold is stored the same way on both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { newRevision, replaceCases, writeMergedCases } from '../../../src/core/cases/index.js';
import type { MergeOutcome } from '../../../src/core/cases/index.js';
import type { CaseWrite } from '../../../src/store/cases-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import { limitsOf } from '../../../src/core/home/index.js';
import { fixture, storeKindOf, storeSql, tempStore } from '../../helpers/temp-home.js';

const G = '00000000-0000-4000-8000-000000000001';

const write = (over: Partial<CaseWrite> = {}): CaseWrite => ({
  guid: G,
  caseKey: '001001',
  label: 'Berg household',
  data: '{"id":{"CLUSTER":1,"HHNO":1}}',
  verified: false,
  deleted: false,
  clock: [{ deviceId: 'tab1', revision: 1 }],
  partialSave: null,
  notes: [],
  ...over,
});

async function withStore(fn: (store: Store, dictionaryId: number) => Promise<void>): Promise<void> {
  const t = await tempStore();
  try {
    const up = await uploadDictionary(t.store, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' });
    await fn(t.store, (await t.store.dictionaries.find(up.name))!.id);
  } finally {
    await t.cleanup();
  }
}

/** One merge in its own transaction, as a sync upload writes: returns the tally. */
async function merge(store: Store, dictionaryId: number, c: CaseWrite): Promise<Record<MergeOutcome, number>> {
  const tally: Record<MergeOutcome, number> = { inserted: 0, updated: 0, unchanged: 0, older: 0 };
  const limits = limitsOf(store);
  await store.transaction((tx) =>
    writeMergedCases(tx, dictionaryId, [c], 'srv', () => newRevision(tx, dictionaryId, 'test'), tally, limits),
  );
  return tally;
}

const replace = (store: Store, dictionaryId: number, c: CaseWrite, revision: number) => {
  const limits = limitsOf(store);
  return store.transaction((tx) => replaceCases(tx, dictionaryId, [{ write: c, revision, binary: [] }], 'csweb', limits));
};

test('merge: a case differing only in its case note is an update, at a new revision', async () => {
  await withStore(async (store, id) => {
    assert.equal((await merge(store, id, write())).inserted, 1);
    const first = (await store.cases.get(id, G))!;
    assert.equal((await merge(store, id, write())).unchanged, 1);
    assert.equal((await merge(store, id, write({ caseNote: 'dog in the yard' }))).updated, 1);
    const noted = (await store.cases.get(id, G))!;
    assert.equal(noted.caseNote, 'dog in the yard');
    assert.ok(noted.revision > first.revision);
    assert.equal((await merge(store, id, write())).updated, 1, 'taking the note away is a change too');
    assert.equal((await store.cases.get(id, G))!.caseNote, undefined);
  });
});

test('replace as it is: a case differing only in its case note is written, at the revision it brings', async () => {
  await withStore(async (store, id) => {
    assert.deepEqual(await replace(store, id, write(), 50), { written: 1, unchanged: 0 });
    assert.deepEqual(await replace(store, id, write(), 50), { written: 0, unchanged: 1 });
    // The import's own equality used to skip the case note: this case stayed as it was.
    assert.deepEqual(await replace(store, id, write({ caseNote: 'dog in the yard' }), 50), { written: 1, unchanged: 0 });
    assert.equal((await store.cases.get(id, G))!.caseNote, 'dog in the yard');
    assert.deepEqual(await replace(store, id, write(), 50), { written: 1, unchanged: 0 });
    const c = (await store.cases.get(id, G))!;
    assert.equal(c.caseNote, undefined);
    assert.equal(c.revision, 50);
    // Its own rule for the rest: another clock or revision with the same content is written as it is.
    assert.deepEqual(await replace(store, id, write({ clock: [{ deviceId: 'tab2', revision: 1 }] }), 50), { written: 1, unchanged: 0 });
    assert.deepEqual(await replace(store, id, write({ clock: [{ deviceId: 'tab2', revision: 1 }] }), 51), { written: 1, unchanged: 0 });
    assert.equal((await store.cases.get(id, G))!.revision, 51);
    // The store's counter continues above the revisions kept.
    assert.equal((await merge(store, id, write({ guid: '00000000-0000-4000-8000-000000000002' }))).inserted, 1);
    assert.ok((await store.cases.get(id, '00000000-0000-4000-8000-000000000002'))!.revision > 51);
  });
});

test('both paths store a lone surrogate of the key, label and case note as one U+FFFD, and see the same case again as unchanged', async () => {
  await withStore(async (store, id) => {
    const lone = write({ caseKey: '001\ud800', label: 'Berg \ud800 household', caseNote: '\udc00' });
    assert.equal((await merge(store, id, lone)).inserted, 1);
    assert.equal((await merge(store, id, lone)).unchanged, 1, 'the stored form compares equal to what it came from');
    const c = (await store.cases.get(id, G))!;
    assert.deepEqual([c.caseKey, c.label, c.caseNote], ['001\ufffd', 'Berg \ufffd household', '\ufffd']);
    const other = { ...lone, guid: '00000000-0000-4000-8000-000000000003' };
    assert.deepEqual(await replace(store, id, other, 60), { written: 1, unchanged: 0 });
    assert.deepEqual(await replace(store, id, other, 60), { written: 0, unchanged: 1 });
    // What the store holds: UTF-8 of U+FFFD (EF BF BD), never the surrogate's bytes ED A0 80.
    const hex = (column: string) =>
      storeKindOf(store) === 'sqlite' ? `hex(${column})` : `upper(encode(convert_to(${column}, 'UTF8'), 'hex'))`;
    const rows = (await storeSql(
      store,
      `SELECT ${hex('case_key')} AS k, ${hex('label')} AS l, ${hex('case_note')} AS n FROM cases ORDER BY guid`,
    )) as { k: string; l: string; n: string }[];
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.equal(r.n, 'EFBFBD');
      assert.ok(r.l.includes('EFBFBD') && !r.l.includes('EDA080'), r.l);
      assert.ok(r.k.endsWith('EFBFBD'), r.k);
    }
  });
});
