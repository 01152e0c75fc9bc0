/**
 * The store contract of `store.sync` (docs/architecture.md#the-store-contract): every method on
 * both stores with the same answers, and the places several writers meet (docs/decisions.md,
 * "Concurrent writers on the PostgreSQL store"): a download's snapshot against revisions in flight,
 * and two records of one new device.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CaseWrite, StoredCase } from '../../../src/store/cases-repo.js';
import type { NewDictionary } from '../../../src/store/dictionaries-repo.js';
import type { Store } from '../../../src/store/store-contract.js';
import type { SyncCaseRow, SyncRange } from '../../../src/store/sync-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

async function dictionary(store: Store, name: string): Promise<{ id: number; createdAt: string }> {
  const d: NewDictionary = {
    name,
    label: name,
    version: 'CSPro 8.0',
    description: '',
    source: Buffer.from(name),
    sourceFormat: 'text',
    syncName: null,
    model: {} as NewDictionary['model'],
  };
  return (await store.dictionaries.save(d)).row;
}

const write = (guid: string, caseKey: string, extra: Partial<CaseWrite> = {}): CaseWrite => ({
  guid,
  caseKey,
  label: `label ${caseKey}`,
  data: `{"id":"${caseKey}","é":"ü"}`,
  verified: false,
  deleted: false,
  clock: [{ deviceId: 'dev', revision: 1 }],
  partialSave: null,
  notes: [],
  ...extra,
});

/** Writes `cases` at one new revision of the dictionary, as an upload does; returns the revision. */
async function upload(store: Store, dictionaryId: number, cases: CaseWrite[]): Promise<number> {
  return store.transaction(async (tx) => {
    const revision = await tx.cases.nextRevision(dictionaryId, 'test');
    for (const c of cases) await tx.cases.upsert(dictionaryId, c, revision);
    return revision;
  });
}

const all = (upTo: number, extra: Partial<SyncRange> = {}): SyncRange => ({
  after: { revision: 0, guid: '~' },
  upTo,
  universe: '',
  excludeRevisions: [],
  ...extra,
});

/** A stored case as a download page reads it: its JSON columns as the store wrote them (caseWriteValues). */
function pageRowOf(c: StoredCase): SyncCaseRow {
  return {
    guid: c.guid,
    caseKey: c.caseKey,
    label: c.label,
    data: c.data,
    verified: c.verified,
    deleted: c.deleted,
    revision: c.revision,
    clock: JSON.stringify(c.clock),
    partialSave: c.partialSave ? JSON.stringify(c.partialSave) : null,
    notes: c.notes.length === 0 ? '[]' : JSON.stringify(c.notes),
    caseNote: c.caseNote ?? null,
  };
}

/** The bytes of a stored case's text, as ROW_BYTES counts them. */
function bytes(c: CaseWrite): number {
  const text = [c.guid, c.caseKey, c.label, c.data, JSON.stringify(c.clock), c.notes.length === 0 ? '[]' : JSON.stringify(c.notes)];
  if (c.partialSave) text.push(JSON.stringify(c.partialSave));
  if (c.caseNote !== undefined) text.push(c.caseNote);
  return text.reduce((n, t) => n + Buffer.byteLength(t), 0);
}

testOnBothStores('sync: a total carried for an older snapshot holds for a newer one, moved by the cases written since', async (store) => {
  const d = await dictionary(store, 'DELTA');
  const r1 = await upload(
    store,
    d.id,
    ['g1', 'g2', 'g3', 'g4', 'g5'].map((g) => write(g, `00${g}`)),
  );
  // The cursor after g2; the ranges a download may ask for: plain, without a revision, in a universe.
  const after = { revision: r1, guid: 'g2' };
  const at = (upTo: number, extra: Partial<SyncRange> = {}) => all(upTo, { after, ...extra });
  const shapes = (r2: number): Partial<SyncRange>[] => [{}, { excludeRevisions: [r2] }, { excludeRevisions: [r1] }, { universe: '00g' }];
  // The totals a page read at `upTo` carries: for exclusions of revisions not written yet, the same.
  const totalsAt = async (upTo: number, later: number) =>
    Promise.all(shapes(later).map((x) => store.sync.count(d.id, `${d.createdAt}${upTo}`, at(upTo, x))));
  const carryAll = async (upTo: number, later: number, totals: number[]) => {
    for (const [k, x] of shapes(later).entries()) await store.sync.carry(d.id, d.createdAt, at(upTo, x), totals[k]!);
  };
  const countAll = async (upTo: number, later: number) =>
    Promise.all(shapes(later).map((x) => store.sync.count(d.id, d.createdAt, at(upTo, x))));

  // At r1 g3, g4 and g5 remain after the cursor (none under an exclusion of r1).
  const atR1 = await totalsAt(r1, r1 + 1000);
  assert.deepEqual(atR1, [3, 3, 0, 3]);
  // Then a new case, a case already sent (g1) and one not sent yet (g4) changed, their keys too.
  const r2 = await upload(store, d.id, [write('g6', '006'), write('g1', '001', { label: 'b' }), write('g4', '004', { label: 'b' })]);
  await carryAll(r1, r2, atR1);
  // After g2 at r2: g3, g5 (r1); g1, g4, g6 (r2). Only g3 and g5 keep a key under 00g.
  assert.deepEqual(await countAll(r2, r2), [5, 2, 3, 2]);

  // Then g5 changed twice: what it was at r2 is lost, so the rest of the range is counted.
  const atR2 = await totalsAt(r2, r2);
  const r3 = await upload(store, d.id, [write('g5', '005', { label: 'b' })]);
  const r4 = await upload(store, d.id, [write('g5', '005', { label: 'c' }), write('g7', '007')]);
  await carryAll(r2, r2, atR2);
  assert.ok(r1 < r2 && r2 < r3 && r3 < r4);
  // After g2 at r4: g3 (r1); g1, g4, g6 (r2); g5, g7 (r4).
  assert.deepEqual(await countAll(r4, r2), [6, 3, 5, 1]);
});

testOnBothStores('sync: maxRevision, chunk, chunkWithin, count and carry', async (store) => {
  assert.equal(await store.sync.maxRevision(), 0);
  const a = await dictionary(store, 'ALPHA');
  const b = await dictionary(store, 'BETA');
  const g1 = write('a-guid-1', '001');
  const g2 = write('B-guid-2', '002', { partialSave: { mode: 'add' }, caseNote: 'note ✓' });
  const r1 = await upload(store, a.id, [g1, g2]);
  const r2 = await upload(store, b.id, [write('c-guid-3', '001')]);
  const g1b = write('a-guid-1', '001', { label: 'changed', verified: true });
  const g4 = write('d-guid-4', '101', {
    notes: [
      {
        content: 'n',
        field: { name: 'X', occurrences: { record: 1, item: 0, subitem: 0 } } as never,
        operatorId: 'op',
        modifiedTime: '2024-01-01T00:00:00Z',
      },
    ],
  });
  const r3 = await upload(store, a.id, [g1b, g4]);
  const g5 = write('e-guid-5', '002b', { deleted: true });
  const r4 = await upload(store, a.id, [g5]);
  assert.ok(r1 < r2 && r2 < r3 && r3 < r4);
  assert.equal(await store.sync.maxRevision(), r4, 'the counter is the whole store’s');

  const stored = async (guid: string) => pageRowOf((await store.cases.get(a.id, guid))!);
  const expected = [await stored('B-guid-2'), await stored('a-guid-1'), await stored('d-guid-4'), await stored('e-guid-5')];
  assert.deepEqual(
    expected.map((c) => [c.revision, c.guid]),
    [
      [r1, 'B-guid-2'],
      [r3, 'a-guid-1'],
      [r3, 'd-guid-4'],
      [r4, 'e-guid-5'],
    ],
  );
  assert.equal(expected[0]!.caseNote, 'note ✓');
  assert.equal(expected[0]!.partialSave, '{"mode":"add"}');
  assert.equal(expected[3]!.deleted, true);

  // By revision then guid (byte-wise: 'B' < 'a'), after the cursor, up to the snapshot.
  assert.deepEqual(await store.sync.chunk(a.id, all(r4), 10), expected);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4), 2), expected.slice(0, 2));
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { after: { revision: r3, guid: 'a-guid-1' } }), 10), expected.slice(2));
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { after: { revision: r1, guid: '' } }), 10), expected);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { after: { revision: r4, guid: '~' } }), 10), []);
  assert.deepEqual(await store.sync.chunk(a.id, all(r3), 10), expected.slice(0, 3));
  assert.deepEqual(await store.sync.chunk(a.id, all(r1 - 1), 10), []);
  // Universe: a case-key prefix; exclusions: the device's own upload revisions.
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { universe: '00' }), 10), [expected[0], expected[1], expected[3]]);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { universe: '002' }), 10), [expected[0], expected[3]]);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { universe: '1' }), 10), [expected[2]]);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { universe: 'é' }), 10), []);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { excludeRevisions: [r3] }), 10), [expected[0], expected[3]]);
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { excludeRevisions: [r1, r4, 999] }), 10), expected.slice(1, 3));
  assert.deepEqual(await store.sync.chunk(a.id, all(r4, { universe: '00', excludeRevisions: [r1] }), 10), [expected[1], expected[3]]);
  assert.deepEqual(await store.sync.chunk(b.id, all(r4), 10), [pageRowOf((await store.cases.get(b.id, 'c-guid-3'))!)]);

  // chunkWithin: as many as fit the byte budget, at least one; `seen` up to the limit.
  const sizes = [g2, g1b, g4, g5].map(bytes);
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4), 10, 1e9), { cases: expected, seen: 4 });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4), 3, 1e9), { cases: expected.slice(0, 3), seen: 3 });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4), 10, 0), { cases: expected.slice(0, 1), seen: 4 });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4), 10, sizes[0]! + sizes[1]!), { cases: expected.slice(0, 2), seen: 4 });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4), 10, sizes[0]! + sizes[1]! - 1), { cases: expected.slice(0, 1), seen: 4 });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4, { universe: '00', excludeRevisions: [r4] }), 10, sizes[0]! + sizes[1]!), {
    cases: expected.slice(0, 2),
    seen: 2,
  });
  assert.deepEqual(await store.sync.chunkWithin(a.id, all(r4, { after: { revision: r4, guid: '~' } }), 10, 0), { cases: [], seen: 0 });

  // count: the whole range; a carried total answers for the same range, scope and snapshot only.
  assert.equal(await store.sync.count(a.id, a.createdAt, all(r4)), 4);
  assert.equal(await store.sync.count(a.id, a.createdAt, all(r4, { universe: '00', excludeRevisions: [r1] })), 2);
  assert.equal(await store.sync.count(b.id, b.createdAt, all(r4)), 1);
  const next = all(r4, { after: { revision: r3, guid: 'a-guid-1' } });
  await store.sync.carry(a.id, a.createdAt, next, 42);
  assert.equal(await store.sync.count(a.id, a.createdAt, next), 42);
  assert.equal(await store.sync.count(a.id, `${a.createdAt}x`, next), 2, 'another scope counts afresh');
  assert.equal(await store.sync.count(a.id, a.createdAt, { ...next, upTo: r3 }), 1, 'another snapshot counts afresh');
  await store.sync.carry(a.id, a.createdAt, next, 7);
  assert.equal(await store.sync.count(a.id, a.createdAt, next), 7, 'the latest carry wins');

  // The same reads in one read transaction (a download page) and in a write transaction.
  await store.readTransaction(async (tx) => {
    assert.equal(await tx.sync.maxRevision(), r4);
    assert.deepEqual(await tx.sync.chunkWithin(a.id, all(r4), 2, 1e9), { cases: expected.slice(0, 2), seen: 2 });
    assert.equal(await tx.sync.count(a.id, a.createdAt, all(r4)), 4);
  });
  await store.transaction(async (tx) => {
    const r5 = await tx.cases.nextRevision(a.id, 'test');
    await tx.cases.upsert(a.id, write('f-guid-6', '200'), r5);
    assert.equal(await tx.sync.maxRevision(), r5);
    assert.deepEqual(
      (await tx.sync.chunk(a.id, all(r5), 10)).map((c) => c.guid),
      ['B-guid-2', 'a-guid-1', 'd-guid-4', 'e-guid-5', 'f-guid-6'],
    );
    await tx.sync.carry(a.id, a.createdAt, all(r5), 3);
    assert.equal(await tx.sync.count(a.id, a.createdAt, all(r5)), 3);
  });
  assert.equal(await store.sync.count(a.id, a.createdAt, all(r4 + 1)), 3, 'a carry outlives the transaction that made it');
});

testOnBothStores('sync: record, history and lastOfDevice', async (store) => {
  const a = await dictionary(store, 'ALPHA');
  const b = await dictionary(store, 'BETA');
  assert.deepEqual(await store.sync.history(a.id, 10), []);
  assert.equal(await store.sync.lastOfDevice('tab-1', a.id), undefined);

  await store.sync.record({ dictionaryId: a.id, device: 'tab-1', username: 'ana', direction: 'put', revision: 3, cases: 5 });
  await store.sync.record({ dictionaryId: a.id, device: 'tab-2', username: 'bo', direction: 'get', revision: 4, universe: '01', cases: 2 });
  await store.sync.record({ dictionaryId: b.id, device: 'tab-1', username: 'ana', direction: 'get', revision: 4, cases: 0 });
  await store.transaction((tx) =>
    tx.sync.record({ dictionaryId: a.id, device: 'tab-1', username: 'cy', direction: 'get', revision: 6, cases: 1 }),
  );
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.sync.record({ dictionaryId: a.id, device: 'tab-3', username: 'dee', direction: 'put', revision: 7, cases: 1 });
      assert.equal((await tx.sync.lastOfDevice('tab-3', a.id))!.username, 'dee');
      throw new Error('roll back');
    }),
    /roll back/,
  );

  const history = await store.sync.history(a.id, 10);
  assert.deepEqual(
    history.map(({ id: _id, createdAt: _at, ...h }) => h),
    [
      { device: 'tab-1', username: 'cy', direction: 'get', revision: 6, universe: '', cases: 1 },
      { device: 'tab-2', username: 'bo', direction: 'get', revision: 4, universe: '01', cases: 2 },
      { device: 'tab-1', username: 'ana', direction: 'put', revision: 3, universe: '', cases: 5 },
    ],
  );
  assert.ok(history[0]!.id > history[1]!.id && history[1]!.id > history[2]!.id);
  for (const h of history) assert.match(h.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(await store.sync.history(a.id, 2), history.slice(0, 2));
  assert.deepEqual(await store.sync.history(a.id, 0), []);
  assert.deepEqual(
    (await store.sync.history(b.id, 10)).map((h) => h.revision),
    [4],
  );
  assert.deepEqual(await store.sync.lastOfDevice('tab-1', a.id), history[0]);
  assert.deepEqual(await store.sync.lastOfDevice('tab-2', a.id), history[1]);
  assert.equal((await store.sync.lastOfDevice('tab-1', b.id))!.direction, 'get');
  assert.equal(await store.sync.lastOfDevice('tab-2', b.id), undefined);
  assert.equal(await store.sync.lastOfDevice('tab-3', a.id), undefined);
  // In one direction: tab-1's last download of ALPHA, its last upload, none for tab-2's uploads.
  assert.deepEqual(await store.sync.lastOfDevice('tab-1', a.id, 'get'), history[0]);
  assert.deepEqual(await store.sync.lastOfDevice('tab-1', a.id, 'put'), history[2]);
  assert.equal(await store.sync.lastOfDevice('tab-2', a.id, 'put'), undefined);
  // A dictionary that does not exist cannot hold history (its foreign key).
  await assert.rejects(store.sync.record({ dictionaryId: 999, device: 'tab-1', username: 'x', direction: 'get', revision: 1, cases: 0 }));
});

testOnBothStores('sync: recordMessage, messages and countMessages', async (store) => {
  assert.deepEqual(await store.sync.messages({}, { limit: 10, offset: 0 }), []);
  assert.equal(await store.sync.countMessages({}), 0);
  const m = (device: string, name: string, value: string | null, receivedAt: string) =>
    store.sync.recordMessage(
      { device, username: `${device}-user`, name, value, sentAt: value === null ? '' : '2024-01-01T09:00:00' },
      receivedAt,
    );
  const id1 = await m('tab-1', 'gps', '{"lat":1}', '2024-01-01T10:00:00.000Z');
  const id2 = await m('tab-2', 'gps', null, '2024-01-02T10:00:00.000Z');
  const id3 = await m('tab-1', 'note', '"é"', '2024-01-03T10:00:00.000Z');
  const id4 = await store.transaction((tx) =>
    tx.sync.recordMessage({ device: 'tab-2', username: 'u', name: 'note', value: '1', sentAt: 'x' }),
  );
  assert.ok(id1 < id2 && id2 < id3 && id3 < id4);

  const everything = await store.sync.messages({}, { limit: 10, offset: 0 });
  assert.deepEqual(
    everything.map((x) => x.id),
    [id4, id3, id2, id1],
  );
  assert.deepEqual(everything[3], {
    id: id1,
    device: 'tab-1',
    username: 'tab-1-user',
    name: 'gps',
    value: '{"lat":1}',
    sentAt: '2024-01-01T09:00:00',
    receivedAt: '2024-01-01T10:00:00.000Z',
  });
  assert.equal(everything[2]!.value, null);
  assert.match(everything[0]!.receivedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const ids = async (filter: Parameters<Store['sync']['messages']>[0], limit = 10, offset = 0) =>
    (await store.sync.messages(filter, { limit, offset })).map((x) => x.id);
  assert.deepEqual(await ids({}, 2, 0), [id4, id3]);
  assert.deepEqual(await ids({}, 2, 2), [id2, id1]);
  assert.deepEqual(await ids({}, 2, 4), []);
  assert.deepEqual(await ids({ device: 'tab-1' }), [id3, id1]);
  assert.deepEqual(await ids({ name: 'note' }), [id4, id3]);
  assert.deepEqual(await ids({ since: '2024-01-02T10:00:00.000Z' }), [id4, id3, id2]);
  assert.deepEqual(await ids({ before: id3 }), [id2, id1]);
  assert.deepEqual(await ids({ device: 'tab-2', name: 'gps', since: '2024-01-01T00:00:00.000Z', before: id4 }), [id2]);
  assert.deepEqual(await ids({ device: 'TAB-1' }), [], 'devices are compared exactly');
  assert.equal(await store.sync.countMessages({}), 4);
  assert.equal(await store.sync.countMessages({ device: 'tab-1' }), 2);
  assert.equal(await store.sync.countMessages({ name: 'gps', before: id2 }), 1);
  assert.equal(await store.sync.countMessages({ since: '2099-01-01T00:00:00.000Z' }), 0);
  await store.readTransaction(async (tx) => {
    assert.deepEqual(
      (await tx.sync.messages({ name: 'gps' }, { limit: 1, offset: 1 })).map((x) => x.id),
      [id1],
    );
    assert.equal(await tx.sync.countMessages({ name: 'gps' }), 2);
  });
});

testOnBothStores('sync: a download’s snapshot never passes a revision still in flight', async (store, kind) => {
  const a = await dictionary(store, 'ALPHA');
  const b = await dictionary(store, 'BETA');
  const before = await upload(store, a.id, [write('a-guid-0', '000')]);
  let allocated!: (revision: number) => void;
  const inFlight = new Promise<number>((resolve) => (allocated = resolve));
  // A slow upload: allocates its revision, writes its case, and commits only later.
  const slow = store.transaction(async (tx) => {
    const revision = await tx.cases.nextRevision(a.id, 'slow');
    await tx.cases.upsert(a.id, write('a-guid-1', '001'), revision);
    allocated(revision);
    await sleep(400);
    return revision;
  });
  const held = await inFlight;
  // A quick upload to another dictionary meanwhile: it gets its revision only after the slow
  // one committed, so no download can see it without the slow one's.
  const quick = upload(store, b.id, [write('b-guid-1', '001')]);
  await sleep(100);
  const download = await store.readTransaction(async (tx) => {
    const snapshot = await tx.sync.maxRevision();
    return { snapshot, cases: await tx.sync.chunk(a.id, all(snapshot), 10) };
  });
  // PostgreSQL reads beside the writers, below the revision in flight; SQLite's read waited for them.
  if (kind === 'postgresql') assert.equal(download.snapshot, before, 'the snapshot stays below the revision in flight');
  const [slowRevision, quickRevision] = await Promise.all([slow, quick]);
  assert.equal(slowRevision, held);
  assert.ok(quickRevision > slowRevision, 'revisions are allocated in commit order');
  // Nothing at or below the download's snapshot committed after it: it missed nothing.
  assert.deepEqual(await store.sync.chunk(a.id, all(download.snapshot), 10), download.cases);
  // The next download resumes after that snapshot and gets the slow upload's case.
  const snapshot = await store.sync.maxRevision();
  assert.equal(snapshot, quickRevision);
  const after = { after: { revision: download.snapshot, guid: '~' } };
  const rest = (await store.sync.chunk(a.id, all(snapshot, after), 10)).map((c) => [c.guid, c.revision]);
  assert.deepEqual(rest, download.snapshot < slowRevision ? [['a-guid-1', slowRevision]] : []);
});

testOnBothStores('sync: two records of one new device at once both land', async (store) => {
  const a = await dictionary(store, 'ALPHA');
  let recorded!: () => void;
  const first = new Promise<void>((resolve) => (recorded = resolve));
  const one = store.transaction(async (tx) => {
    await tx.sync.record({ dictionaryId: a.id, device: 'new-tab', username: 'ana', direction: 'put', revision: 1, cases: 1 });
    recorded();
    await sleep(300);
  });
  await first;
  const two = store.sync.record({ dictionaryId: a.id, device: 'new-tab', username: 'bo', direction: 'get', revision: 1, cases: 0 });
  await Promise.all([one, two]);
  assert.deepEqual(
    (await store.sync.history(a.id, 10)).map((h) => [h.device, h.username, h.direction]),
    [
      ['new-tab', 'bo', 'get'],
      ['new-tab', 'ana', 'put'],
    ],
  );
});

testOnBothStores('sync: snapshotPage reads in one statement what maxRevision, chunkWithin and count read', async (store, kind) => {
  const d = await dictionary(store, 'D');
  const cases = Array.from({ length: 7 }, (_, i) => write(`g${i}`, i < 4 ? `A${i}` : `B${i}`));
  const r1 = await upload(store, d.id, cases.slice(0, 3));
  await upload(store, d.id, cases.slice(3));
  const { upTo: _, ...plain } = all(0);
  if (kind === 'sqlite') {
    // SQLite reads a page in its read transaction, with no round trip to save.
    assert.equal(await store.sync.snapshotPage('D', plain, 3, Number.POSITIVE_INFINITY), undefined);
    return;
  }
  // Two cases hold binary items: the page names those of its cases (no second round trip for the rest).
  for (const guid of ['g1', 'g5'])
    await store.binaryItems.replaceForCase(d.id, guid, [{ signature: 'a'.repeat(32), size: 3, modifiedTime: '2026-01-01T00:00:00Z' }]);
  const expected = async (r: Omit<SyncRange, 'upTo'>, limit: number, budget: number) =>
    store.readTransaction(async (tx) => {
      const snapshot = await tx.sync.maxRevision();
      const range = { ...r, upTo: snapshot };
      const { cases: page, seen } = await tx.sync.chunkWithin(d.id, range, limit, budget);
      const holding = await tx.binaryItems.forCases(
        d.id,
        page.map((c) => c.guid),
      );
      return {
        snapshot,
        cases: page,
        seen,
        total: seen < limit ? seen : await tx.sync.count(d.id, d.createdAt, range),
        withBinaryItems: page.flatMap((c) => (holding.has(c.guid) ? [c.guid] : [])),
      };
    });
  const ranges: [Omit<SyncRange, 'upTo'>, number, number][] = [
    [plain, 3, Number.POSITIVE_INFINITY],
    [plain, 10, Number.POSITIVE_INFINITY],
    [plain, 7, Number.POSITIVE_INFINITY],
    [plain, 5, bytes(cases[0]!) + 1],
    [{ ...plain, universe: 'B' }, 2, Number.POSITIVE_INFINITY],
    [{ ...plain, excludeRevisions: [r1] }, 2, Number.POSITIVE_INFINITY],
    [{ ...plain, after: { revision: r1, guid: 'g1' } }, 1, Number.POSITIVE_INFINITY],
    [{ ...plain, after: { revision: r1 + 1, guid: '~' } }, 3, Number.POSITIVE_INFINITY],
    [{ ...plain, after: { revision: r1 + 5, guid: '~' } }, 3, Number.POSITIVE_INFINITY],
  ];
  for (const [r, limit, budget] of ranges) {
    assert.deepEqual(
      await store.sync.snapshotPage('D', r, limit, budget),
      { dictionary: await store.dictionaries.find('D'), page: await expected(r, limit, budget) },
      JSON.stringify(r),
    );
  }
  // A total carried for this snapshot answers instead of a count; carried for another, it does not.
  const snapshot = await store.sync.maxRevision();
  await store.sync.carry(d.id, d.createdAt, { ...plain, upTo: snapshot }, 42);
  assert.equal((await store.sync.snapshotPage('D', plain, 3, Number.POSITIVE_INFINITY))?.page.total, 42);
  // Carried for the snapshot before (r1, whose 3 cases the range held), it is moved by the 4 cases
  // written since, not counted again: a total carried wrong on purpose shows which one it was.
  await store.sync.carry(d.id, d.createdAt, { ...plain, upTo: r1 }, 3);
  assert.equal((await store.sync.snapshotPage('D', plain, 3, Number.POSITIVE_INFINITY))?.page.total, 7);
  await store.sync.carry(d.id, d.createdAt, { ...plain, upTo: r1 }, 40);
  assert.equal((await store.sync.snapshotPage('D', plain, 3, Number.POSITIVE_INFINITY))?.page.total, 44);
  // With a universe the move cannot be told (a changed key may enter or leave it): counted.
  await store.sync.carry(d.id, d.createdAt, { ...plain, universe: 'B', upTo: r1 }, 40);
  assert.equal((await store.sync.snapshotPage('D', { ...plain, universe: 'B' }, 2, Number.POSITIVE_INFINITY))?.page.total, 3);
  // A name no dictionary has: null, and the caller refuses it.
  assert.equal(await store.sync.snapshotPage('NONE', plain, 3, Number.POSITIVE_INFINITY), null);
});
