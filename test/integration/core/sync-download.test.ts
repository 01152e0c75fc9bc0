import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { deleteSyncedCase, downloadCases, uploadCases } from '../../../src/core/sync/sync.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import type { DownloadRequest } from '../../../src/sync/headers.js';
import { fixture, storeKindOf, storeSql, tempHome } from '../../helpers/temp-home.js';
import { popstanCases } from '../../helpers/sync-client.js';

const DICT = 'CEN2000';

/** The cases as the body reader yields them: in batches (here of 2, so a batch boundary is crossed). */
async function* items(values: unknown[]): AsyncGenerator<unknown[]> {
  for (let i = 0; i < values.length; i += 2) yield values.slice(i, i + 2);
}

async function popstanStore(t: { after(fn: () => Promise<void>): void }): Promise<Store> {
  return (await popstanHome(t)).store;
}

async function popstanHome(t: { after(fn: () => Promise<void>): void }) {
  const home = await tempHome();
  const store = await openStore(home);
  t.after(async () => {
    await store.close();
    await home.cleanup();
  });
  const file = fixture('popstan-census.json.dcf');
  await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
  return { store, home };
}

const request = (over: Partial<DownloadRequest>): DownloadRequest => ({
  device: 'tablet-b',
  lastRevision: 0,
  hasLastRevision: false,
  startAfter: '',
  count: 2,
  universe: '',
  excludeRevisions: [],
  ...over,
});

test('sync download: a carried page total answers the next page; a write in between is counted afresh', async (t) => {
  const store = await popstanStore(t);
  await uploadCases(store, DICT, items(popstanCases(5, 'tablet-a')), { device: 'tablet-a' }, 'u');
  const dict = (await store.dictionaries.find(DICT))!;

  const first = await downloadCases(store, DICT, request({}), 'u');
  assert.equal(first.rangeCount, '2/5');
  const last = first.cases.at(-1)!;
  const next = { after: { revision: last.revision, guid: last.guid }, upTo: first.cases[0]!.revision, universe: '', excludeRevisions: [] };
  // The next page's range total is remembered (not recounted) under this dictionary and snapshot.
  await store.sync.carry(dict.id, dict.createdAt, next, 42);
  assert.equal(await store.sync.count(dict.id, dict.createdAt, next), 42);
  assert.equal(await store.sync.count(dict.id, 'another dictionary created later', next), 3, 'another scope counts the store');
  await store.sync.carry(dict.id, dict.createdAt, next, 3);

  const cursor = { lastRevision: last.revision, hasLastRevision: true, startAfter: last.guid };
  const second = await downloadCases(store, DICT, request(cursor), 'u');
  assert.equal(second.rangeCount, '2/3');
  assert.equal(second.status, 206);

  // Another upload between pages: a new snapshot, so the rest of the range is counted again.
  const last2 = second.cases.at(-1)!;
  await uploadCases(store, DICT, items(popstanCases(4, 'tablet-c')), { device: 'tablet-c' }, 'u');
  const third = await downloadCases(
    store,
    DICT,
    request({ lastRevision: last2.revision, hasLastRevision: true, startAfter: last2.guid }),
    'u',
  );
  assert.equal(third.rangeCount, '2/5', 'the 1 case left of the first upload and the 4 new ones');
  let page = third;
  const seen = [...first.cases, ...second.cases, ...third.cases].map((c) => c.guid);
  while (page.status === 206) {
    const l = page.cases.at(-1)!;
    page = await downloadCases(store, DICT, request({ lastRevision: l.revision, hasLastRevision: true, startAfter: l.guid }), 'u');
    seen.push(...page.cases.map((c) => c.guid));
  }
  assert.equal(new Set(seen).size, 9);
  assert.equal(seen.length, 9);
});

test('sync download: the revision index carries case_key, so a universe-filtered count reads the index alone', async (t) => {
  const store = await popstanStore(t);
  const query =
    storeKindOf(store) === 'sqlite'
      ? "SELECT name FROM pragma_index_info('cases_by_revision') ORDER BY seqno"
      : `SELECT a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           CROSS JOIN unnest(i.indkey) WITH ORDINALITY AS k(attnum, seqno)
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE c.relname = 'cases_by_revision' ORDER BY k.seqno`;
  const columns = (await storeSql(store, query)).map((r) => r.name);
  assert.deepEqual(columns, ['dictionary_id', 'revision', 'guid', 'deleted', 'case_key']);
});

/** Downloads every page of `device`'s download from `from`, each page from the next of `stores` in turn. */
async function downloadAll(stores: Store[], device: string, from: number): Promise<{ revision: number; sent: number }> {
  let req = request({ device, lastRevision: from, hasLastRevision: from > 0 });
  let sent = 0;
  for (let i = 0; ; i += 1) {
    const page = await downloadCases(stores[i % stores.length]!, DICT, req, 'u');
    sent += page.cases.length;
    if (page.status === 200) return { revision: page.chunkMaxRevision, sent };
    const l = page.cases.at(-1)!;
    req = request({ device, lastRevision: l.revision, hasLastRevision: true, startAfter: l.guid });
  }
}

const downloadsOf = async (store: Store, device: string) =>
  (await storeSql(store, "SELECT cases FROM sync_history WHERE device_id = ? AND direction = 'get' ORDER BY id", [device])).map((r) =>
    Number(r.cases),
  );

test('sync download: the history row of a download of several pages holds the cases of every page', async (t) => {
  const store = await popstanStore(t);
  await uploadCases(store, DICT, items(popstanCases(5, 'tablet-a')), { device: 'tablet-a' }, 'u');
  const full = await downloadAll([store], 'tablet-b', 0);
  assert.equal(full.sent, 5);
  await uploadCases(store, DICT, items(popstanCases(3, 'tablet-c')), { device: 'tablet-c' }, 'u');
  const next = await downloadAll([store], 'tablet-b', full.revision);
  assert.equal(next.sent, 3);
  // A download of one page, and one with nothing new.
  const none = await downloadAll([store], 'tablet-b', next.revision);
  assert.deepEqual(await downloadsOf(store, 'tablet-b'), [5, 3, none.sent]);
  assert.equal(none.sent, 0);
});

test('sync download: pages served by two nodes still record the whole download', async (t) => {
  const { store, home } = await popstanHome(t);
  // A second node on the same store: its memory of downloads in progress is its own.
  const other = await openStore(home);
  t.after(() => other.close());
  await uploadCases(store, DICT, items(popstanCases(4, 'tablet-a')), { device: 'tablet-a' }, 'u');
  const first = await downloadAll([store, other], 'tablet-b', 0);
  assert.equal(first.sent, 4);
  await uploadCases(store, DICT, items(popstanCases(5, 'tablet-c')), { device: 'tablet-c' }, 'u');
  const second = await downloadAll([store, other], 'tablet-b', first.revision);
  assert.equal(second.sent, 5);
  // Counted from the device's previous download's revision when the earlier pages were another node's.
  assert.deepEqual(await downloadsOf(store, 'tablet-b'), [4, 5]);
});

test('sync download: the total of each page stays exact while cases are written between pages', async (t) => {
  const store = await popstanStore(t);
  const dict = (await store.dictionaries.find(DICT))!;
  const stored = popstanCases(16, 'tablet-a');
  await uploadCases(store, DICT, items(stored), { device: 'tablet-a' }, 'u');
  // Tablet b's own upload: its revision (after the cursor until the download is past it) is
  // excluded from its download, as the client asks.
  const mine = popstanCases(2, 'tablet-b');
  const own = await uploadCases(store, DICT, items(mine), { device: 'tablet-b' }, 'u');
  const exclude = [own.revision];
  const sent = new Set<string>();
  const deleted = new Set<string>();
  let clock = 1;
  // A newer version of stored cases (a new label, the clock moved on): the merge writes it at a new revision.
  const update = async (cases: typeof stored) => {
    clock += 1;
    const batch = cases.map((c) => ({ ...c, label: `version ${clock}`, clock: [{ deviceId: 'tablet-a', revision: clock }] }));
    const r = await uploadCases(store, DICT, items(batch), { device: 'tablet-a' }, 'u');
    assert.equal(r.tally.updated, cases.length, 'every case of the batch changed');
    // A changed case is ahead of the cursor again, to be sent again.
    for (const c of cases) sent.delete(c.id);
  };
  const pick = (wasSent: boolean, n: number) => {
    const out = stored.filter((c) => sent.has(c.id) === wasSent && !deleted.has(c.id)).slice(0, n);
    assert.equal(out.length, n, `${n} stored cases ${wasSent ? '' : 'not '}yet sent`);
    return out;
  };
  // Between pages, writes of every kind: new cases; cases already sent, and cases not sent yet,
  // changed; a case already sent changed twice (its revision before the first change is then
  // unknown); tablet b's own case changed by another (it was excluded, now it is not); deletions;
  // tablet b's own upload again (its download then excludes that revision too); nothing.
  const between: (() => Promise<unknown>)[] = [
    () => uploadCases(store, DICT, items(popstanCases(3, 'tablet-c')), { device: 'tablet-c' }, 'u'),
    () => update(pick(true, 2)),
    () => update(pick(false, 2)),
    async () => {
      // Both chosen first: once changed, the sent case counts as not sent yet.
      const [c] = pick(true, 1);
      const [other] = pick(false, 1);
      await update([c!]);
      await update([c!, other!]);
    },
    () => update([mine[0]!]),
    async () => {
      const [a] = pick(false, 1);
      const [b] = pick(true, 1);
      for (const c of [a!, b!]) {
        await deleteSyncedCase(store, DICT, c.id, 'tablet-a', 'u');
        deleted.add(c.id);
      }
    },
    async () => {
      const again = await uploadCases(store, DICT, items(popstanCases(2, 'tablet-b')), { device: 'tablet-b' }, 'u');
      exclude.push(again.revision);
    },
    async () => {},
  ];
  // What the range after the cursor holds now, counted by the test's own query.
  const expected = async (after: { revision: number; guid: string }, excluded: number[]) =>
    Number(
      (
        await storeSql(
          store,
          `SELECT count(*) AS n FROM cases WHERE dictionary_id = ? AND (revision > ? OR (revision = ? AND guid > ?))
             AND revision NOT IN (${excluded.map(() => '?').join(', ')})`,
          [dict.id, after.revision, after.revision, after.guid, ...excluded],
        )
      )[0]!.n,
    );
  let cursor = { revision: 0, guid: '' };
  let pages = 0;
  for (;;) {
    const excluded = [...exclude];
    const total = await expected({ revision: cursor.revision, guid: cursor.guid || '~' }, excluded);
    const page = await downloadCases(
      store,
      DICT,
      request({ lastRevision: cursor.revision, hasLastRevision: cursor.revision > 0, startAfter: cursor.guid, excludeRevisions: excluded }),
      'u',
    );
    pages += 1;
    assert.equal(page.rangeCount, `${page.cases.length}/${total}`, `page ${pages}`);
    for (const c of page.cases) sent.add(c.guid);
    if (page.status === 200) break;
    const l = page.cases.at(-1)!;
    cursor = { revision: l.revision, guid: l.guid };
    if (pages <= between.length) await between[pages - 1]!();
  }
  assert.ok(pages > between.length, `${pages} pages: every kind of write came between two of them`);
});
