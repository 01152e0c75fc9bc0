/**
 * The store contract of `store.cases` (docs/architecture.md#the-store-contract): every method on
 * the SQLite and the PostgreSQL store, with the same answers; and, on PostgreSQL, the case-write
 * lock that orders revisions and positions (docs/decisions.md, "Concurrent writers on the
 * PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { CaseWrite } from '../../../src/store/cases-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import type { StoreScope } from '../../../src/store/store-contract.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';
import { sql } from './case-store-helpers.js';

const NOW = '2026-01-02T03:04:05.678Z';

async function dictionary(store: Store, name: string): Promise<number> {
  const source = Buffer.from(`[Dictionary]\nName=${name}\n`);
  const model = { name } as unknown as Dictionary;
  const saved = await store.dictionaries.save({
    name,
    label: name,
    version: '8.0',
    description: '',
    source,
    sourceFormat: 'text',
    syncName: null,
    model,
  });
  return saved.row.id;
}

function write(guid: string, caseKey: string, more: Partial<CaseWrite> = {}): CaseWrite {
  return {
    guid,
    caseKey,
    label: `label ${caseKey}`,
    data: `{"id":"${caseKey}"}`,
    verified: false,
    deleted: false,
    clock: [],
    partialSave: null,
    notes: [],
    ...more,
  };
}

const positions = (store: Store, dict: number) =>
  sql(store, 'SELECT guid, position FROM cases WHERE dictionary_id = ? ORDER BY position', [dict]).then((rows) =>
    rows.map((r) => [r.guid, Number(r.position)]),
  );

testOnBothStores('cases: upsert, get and getMany store every field and keep creation time and position', async (store) => {
  const dict = await dictionary(store, 'D');
  const other = await dictionary(store, 'E');
  const r1 = await store.cases.nextRevision(dict, 'test');
  const full = write('g1', '001', {
    verified: true,
    clock: [{ deviceId: 'dev', revision: 3 }],
    partialSave: {
      mode: 'modify',
      field: { name: 'F', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 },
    } as never,
    notes: [{ content: 'n', field: { name: 'F' } as never, operatorId: 'op', modifiedTime: '2024-03-01T10:00:00Z' }],
    caseNote: 'a note',
  });
  await store.cases.upsert(dict, full, r1, NOW);
  await store.cases.upsert(dict, write('g2', '002'), r1, NOW);
  await store.cases.upsert(other, write('g1', '001'), r1, NOW);

  const got = await store.cases.get(dict, 'g1');
  assert.deepEqual(got, { ...full, revision: r1, createdAt: NOW, modifiedAt: NOW });
  const plain = await store.cases.get(dict, 'g2');
  assert.equal(plain!.partialSave, null);
  assert.deepEqual(plain!.notes, []);
  assert.equal('caseNote' in plain!, false, 'no case note: no property');
  assert.equal(await store.cases.get(dict, 'nope'), undefined);
  assert.equal(await store.cases.get(999, 'g1'), undefined);

  // An update replaces the fields and the revision; creation time and position stay.
  const r2 = await store.cases.nextRevision(dict, 'test');
  assert.ok(r2 > r1);
  await store.cases.upsert(dict, write('g1', '009', { deleted: true }), r2, '2026-02-01T00:00:00.000Z');
  const updated = await store.cases.get(dict, 'g1');
  assert.deepEqual(updated, {
    ...write('g1', '009', { deleted: true }),
    revision: r2,
    createdAt: NOW,
    modifiedAt: '2026-02-01T00:00:00.000Z',
  });
  await store.cases.upsert(dict, write('g3', '003'), r2);
  assert.deepEqual(await positions(store, dict), [
    ['g1', 1],
    ['g2', 2],
    ['g3', 3],
  ]);
  assert.deepEqual(await positions(store, other), [['g1', 1]]);

  const many = await store.cases.getMany(dict, ['g3', 'g1', 'missing', 'g1']);
  assert.deepEqual([...many.keys()], ['g1', 'g3']);
  assert.deepEqual(many.get('g1'), updated);
  assert.equal((await store.cases.getMany(dict, [])).size, 0);
  // More guids than SQLite's old bound of 999 parameters, in one call.
  const lots = Array.from({ length: 1500 }, (_, i) => `x${i}`);
  assert.deepEqual([...(await store.cases.getMany(dict, [...lots, 'g2'])).keys()], ['g2']);
});

testOnBothStores('cases: upsertMany writes a batch as upserts one after the other would', async (store) => {
  const dict = await dictionary(store, 'D');
  const r1 = await store.cases.nextRevision(dict, 't');
  await store.cases.upsert(dict, write('g1', '001'), r1, NOW);
  const r2 = await store.cases.nextRevision(dict, 't');
  const later = '2026-03-01T00:00:00.000Z';
  await store.cases.upsertMany(
    dict,
    [
      { write: write('g2', '002', { notes: [{ content: 'it\'s "quoted", {braced}' } as never] }), revision: r2 },
      { write: write('g1', '001b', { verified: true, caseNote: 'n' }), revision: r2 },
      { write: write('g3', '003', { partialSave: { mode: 'add' } }), revision: r1 },
      { write: write('g2', '002b', { deleted: true }), revision: r2 },
      { write: write('g4', 'NULL', { label: '' }), revision: r2 },
    ],
    later,
  );
  await store.cases.upsertMany(dict, []);
  assert.deepEqual(await positions(store, dict), [
    ['g1', 1],
    ['g2', 2],
    ['g3', 3],
    ['g4', 4],
  ]);
  assert.deepEqual(await store.cases.get(dict, 'g1'), {
    ...write('g1', '001b', { verified: true, caseNote: 'n' }),
    revision: r2,
    createdAt: NOW,
    modifiedAt: later,
  });
  assert.deepEqual(await store.cases.get(dict, 'g2'), {
    ...write('g2', '002b', { deleted: true }),
    revision: r2,
    createdAt: later,
    modifiedAt: later,
  });
  assert.deepEqual(await store.cases.get(dict, 'g3'), {
    ...write('g3', '003', { partialSave: { mode: 'add' } }),
    revision: r1,
    createdAt: later,
    modifiedAt: later,
  });
  assert.deepEqual(await store.cases.get(dict, 'g4'), {
    ...write('g4', 'NULL', { label: '' }),
    revision: r2,
    createdAt: later,
    modifiedAt: later,
  });
  assert.deepEqual([await store.cases.count(dict), await store.cases.countActive(dict)], [4, 3]);
  // In a transaction that fails, none of the batch stays.
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.cases.upsertMany(dict, [{ write: write('g5', '005'), revision: r2 }]);
      throw new Error('stop');
    }),
    /stop/,
  );
  assert.equal(await store.cases.get(dict, 'g5'), undefined);
});

testOnBothStores('cases: revisions are allocated in order, and a recorded one moves the counter past it', async (store) => {
  const dict = await dictionary(store, 'D');
  const a = await store.cases.nextRevision(dict, 'sync:one');
  const b = await store.cases.nextRevision(0, 'import:x');
  assert.deepEqual([a, b], [1, 2]);
  await store.cases.recordRevision(100, dict, 'csweb');
  assert.equal(await store.cases.nextRevision(dict, 'after'), 101);
  // A lower number is recorded without moving the counter back; a known one is left as it is.
  await store.cases.recordRevision(50, dict, 'csweb');
  await store.cases.recordRevision(100, 7, 'again');
  assert.equal(await store.cases.nextRevision(dict, 'after'), 102);
  const rows = await sql(store, 'SELECT revision, dictionary_id, origin FROM revisions ORDER BY revision');
  assert.deepEqual(
    rows.map((r) => [Number(r.revision), Number(r.dictionary_id), r.origin]),
    [
      [1, dict, 'sync:one'],
      [2, 0, 'import:x'],
      [50, dict, 'csweb'],
      [100, dict, 'csweb'],
      [101, dict, 'after'],
      [102, dict, 'after'],
    ],
  );
  for (const r of await sql(store, 'SELECT created_at FROM revisions')) assert.match(String(r.created_at), /^\d{4}-\d\d-\d\dT/);
});

testOnBothStores('cases: a transaction writes a revision and its cases all or nothing', async (store) => {
  const dict = await dictionary(store, 'D');
  await assert.rejects(
    store.transaction(async (tx) => {
      const r = await tx.cases.nextRevision(dict, 'sync:a');
      await tx.cases.upsert(dict, write('g1', '001'), r);
      assert.equal((await tx.cases.get(dict, 'g1'))!.revision, r, 'the transaction sees its own write');
      throw new Error('stop');
    }),
    /stop/,
  );
  assert.equal(await store.cases.get(dict, 'g1'), undefined);
  assert.equal(await store.cases.count(dict), 0);
  assert.deepEqual(await sql(store, 'SELECT revision FROM revisions'), []);
  const r = await store.transaction(async (tx) => {
    const n = await tx.cases.nextRevision(dict, 'sync:b');
    await tx.cases.recordRevision(n + 10, dict, 'kept');
    await tx.cases.upsert(dict, write('g1', '001'), n);
    return n;
  });
  assert.equal((await store.cases.get(dict, 'g1'))!.revision, r);
  assert.equal(await store.cases.nextRevision(dict, 'next'), r + 11);
});

testOnBothStores('cases: counts, the key-ordered list with its byte budget, and the newest revision', async (store) => {
  const dict = await dictionary(store, 'D');
  assert.deepEqual([await store.cases.count(dict), await store.cases.countActive(dict), await store.cases.maxRevision(dict)], [0, 0, 0]);
  const r = await store.cases.nextRevision(dict, 't');
  // Keys in byte order: upper case before lower case, ties by guid.
  await store.cases.upsert(dict, write('g4', 'b'), r, NOW);
  await store.cases.upsert(dict, write('g2', 'B', { deleted: true, verified: true }), r, NOW);
  await store.cases.upsert(dict, write('g3', 'a'), r + 5, NOW);
  await store.cases.upsert(dict, write('g1', 'a', { label: 'x'.repeat(5000) }), r, NOW);
  assert.deepEqual(
    [await store.cases.count(dict), await store.cases.countActive(dict), await store.cases.maxRevision(dict)],
    [4, 3, r + 5],
  );

  const all = await store.cases.page(dict, 10, 0);
  assert.deepEqual(
    all.map((c) => [c.caseKey, c.guid]),
    [
      ['B', 'g2'],
      ['a', 'g1'],
      ['a', 'g3'],
      ['b', 'g4'],
    ],
  );
  assert.deepEqual(all[0], { guid: 'g2', label: 'label B', caseKey: 'B', modifiedAt: NOW, verified: true, deleted: true });
  assert.deepEqual(
    (await store.cases.page(dict, 2, 1)).map((c) => c.guid),
    ['g1', 'g3'],
  );
  assert.deepEqual(await store.cases.page(dict, 10, 4), []);
  // The budget counts guid, key, label and time: the 5000-byte label ends the page after it.
  assert.deepEqual(
    (await store.cases.page(dict, 10, 0, 1000)).map((c) => c.guid),
    ['g2'],
  );
  assert.deepEqual(
    (await store.cases.page(dict, 10, 1, 1000)).map((c) => c.guid),
    ['g1'],
    'at least one row, however large',
  );
  assert.deepEqual(
    (await store.cases.page(dict, 10, 2, 1000)).map((c) => c.guid),
    ['g3', 'g4'],
  );
  assert.deepEqual(await store.cases.page(dict, 10, 9, 1000), []);
});

testOnBothStores('cases: changed pages by revision and guid, their counts and where a pass ends', async (store) => {
  const dict = await dictionary(store, 'D');
  const other = await dictionary(store, 'E');
  assert.equal(await store.cases.lastChanged(dict, 100), undefined);
  const r1 = await store.cases.nextRevision(dict, 't');
  const r2 = await store.cases.nextRevision(dict, 't');
  const r3 = await store.cases.nextRevision(dict, 't');
  await store.cases.upsert(dict, write('b', 'k1'), r1, NOW);
  await store.cases.upsert(dict, write('a', 'k2'), r1, NOW);
  await store.cases.upsert(dict, write('c', 'k3', { deleted: true, notes: [{ content: 'x' } as never] }), r2, NOW);
  await store.cases.upsert(dict, write('d', 'k4'), r3, NOW);
  await store.cases.upsert(other, write('z', 'k9'), r2, NOW);
  const start = { revision: 0, guid: '' };

  const first = await store.cases.changedPage(dict, start, r3, 2, false);
  assert.deepEqual(first, [
    {
      guid: 'a',
      caseKey: 'k2',
      label: 'label k2',
      modifiedAt: NOW,
      verified: false,
      deleted: false,
      data: '{"id":"k2"}',
      revision: r1,
      notes: [],
    },
    {
      guid: 'b',
      caseKey: 'k1',
      label: 'label k1',
      modifiedAt: NOW,
      verified: false,
      deleted: false,
      data: '{"id":"k1"}',
      revision: r1,
      notes: [],
    },
  ]);
  const rest = await store.cases.changedPage(dict, { revision: r1, guid: 'b' }, r3, 10, false);
  assert.deepEqual(
    rest.map((c) => [c.guid, c.revision, c.notes]),
    [
      ['c', r2, [{ content: 'x' }]],
      ['d', r3, []],
    ],
  );
  assert.deepEqual(
    (await store.cases.changedPage(dict, start, r3, 10, true)).map((c) => c.guid),
    ['a', 'b', 'd'],
  );
  assert.deepEqual(
    (await store.cases.changedPage(dict, { revision: r1, guid: 'a' }, r2, 10, false)).map((c) => c.guid),
    ['b', 'c'],
  );
  assert.equal(await store.cases.countChanged(dict, start, r3, false), 4);
  assert.equal(await store.cases.countChanged(dict, start, r3, true), 3);
  assert.equal(await store.cases.countChanged(dict, { revision: r1, guid: 'a' }, r2, true), 1);
  assert.equal(await store.cases.countChanged(dict, { revision: r3, guid: 'd' }, r3, false), 0);
  assert.deepEqual(await store.cases.lastChanged(dict, r3), { revision: r3, guid: 'd' });
  assert.deepEqual(await store.cases.lastChanged(dict, r2), { revision: r2, guid: 'c' });
  assert.deepEqual(await store.cases.lastChanged(dict, r1), { revision: r1, guid: 'b' });
  assert.equal(await store.cases.lastChanged(dict, 0), undefined);
});

const START = { revision: 0, guid: '' };

/** What a download's snapshot read shows of dictionaries `dicts`: its upper revision and the cases of each. */
const snapshot = (dicts: number[]) => async (tx: StoreScope) => ({
  upTo: await tx.sync.maxRevision(),
  cases: await Promise.all(dicts.map(async (d) => (await tx.cases.changedPage(d, START, 1e9, 10, false)).map((c) => c.guid))),
});

/**
 * A writer of dictionary D allocates a revision and holds its transaction: a download's snapshot
 * read meanwhile does not wait and sees none of it; a second writer (of `secondOf(D, E)`) waits
 * at its allocation, then gets the higher revision, and both are seen in order after.
 */
async function revisionsCommitInOrder(store: PostgresStore, secondOf: (d: number, e: number) => number): Promise<void> {
  const dict = await dictionary(store, 'D');
  const second = secondOf(dict, await dictionary(store, 'E'));
  const slowWriter = async (tx: StoreScope) => {
    const r = await tx.cases.nextRevision(dict, 'sync:slow');
    await tx.cases.upsert(dict, write(`slow${r}`, '001'), r);
    return r;
  };
  const reader = await raceTwoTransactions(store, slowWriter, snapshot([dict, second]), { readOnlySecond: true });
  assert.equal(reader.secondWaited, false, 'a reader does not wait for a writer');
  const seenBetween = ok(reader.second);
  assert.deepEqual(seenBetween, { upTo: 0, cases: [[], []] }, 'a reader between sees none of a write in flight');

  const writers = await raceTwoTransactions(store, slowWriter, async (tx) => {
    const r = await tx.cases.nextRevision(second, 'sync:fast');
    await tx.cases.upsert(second, write(`fast${r}`, '002'), r);
    return r;
  });
  assert.equal(writers.secondWaited, true, 'the second writer waits for the first');
  const [r1, r2] = [ok(writers.first), ok(writers.second)];
  assert.ok(r2 > r1, `the second writer's revision ${r2} is above the first's ${r1}`);
  const after = await store.readTransaction(snapshot([dict]));
  assert.equal(after.upTo, r2);
  assert.deepEqual((await store.cases.get(second, `fast${r2}`))!.revision, r2);
  // Both new cases of one dictionary took their own position, in the order they committed.
  const expected =
    second === dict
      ? [
          [`slow${ok(reader.first)}`, 1],
          [`slow${r1}`, 2],
          [`fast${r2}`, 3],
        ]
      : [[`fast${r2}`, 1]];
  assert.deepEqual(await positions(store, second), expected);
}

/** The value of a settled promise; its reason thrown when it failed. */
function ok<T>(settled: PromiseSettledResult<T>): T {
  if (settled.status === 'rejected') throw settled.reason;
  return settled.value;
}

test('cases [postgresql]: revisions of one dictionary commit in the order they were allocated', () =>
  onPostgresStore((store) => revisionsCommitInOrder(store, (d) => d)));

test('cases [postgresql]: a revision of another dictionary waits too, since a download snapshot is store-wide', () =>
  onPostgresStore((store) => revisionsCommitInOrder(store, (_, e) => e)));

test('cases [postgresql]: the read of a merge (getMany) waits for the write in flight and sees it', () =>
  onPostgresStore(async (store) => {
    const dict = await dictionary(store, 'D');
    const race = await raceTwoTransactions(
      store,
      async (tx) => tx.cases.upsert(dict, write('g1', '001'), await tx.cases.nextRevision(dict, 'sync:a')),
      async (tx) => (await tx.cases.getMany(dict, ['g1'])).get('g1')?.caseKey,
    );
    assert.equal(race.secondWaited, true);
    assert.equal(ok(race.second), '001');
  }));

/** An upload of `rows` decided from `read` on dictionary `dict` (writeUploadIfUnchanged). */
const upload = (dict: number, read: { guid: string; version: string | null }[], rows: CaseWrite[]) => ({
  dictionaryId: dict,
  origin: 'sync:tab',
  now: NOW,
  read,
  rows,
  items: [],
  history: { device: 'tab', username: 'ann', cases: rows.length },
});

testOnBothStores(
  'cases: an upload read before its write is written in one statement, unless a case read has changed',
  async (store, kind) => {
    const dict = await dictionary(store, 'D');
    await store.cases.upsert(dict, write('g1', '001'), await store.cases.nextRevision(dict, 'test'), NOW);
    const read = await store.cases.readForUpload(dict, ['g1', 'g2']);
    if (kind === 'sqlite') {
      // SQLite writes uploads in their transaction: nothing is read ahead, nothing written here.
      assert.equal(read, undefined);
      assert.equal(await store.cases.writeUploadIfUnchanged(upload(dict, [], [write('g2', '002')])), undefined);
      assert.equal(await store.cases.get(dict, 'g2'), undefined);
      return;
    }
    assert.ok(read);
    assert.deepEqual([...read.cases.keys()], ['g1']);
    // The store's device id comes with the read once it exists.
    assert.equal(read.serverDeviceId, undefined);
    const device = await store.settings.serverDeviceId();
    assert.equal((await store.cases.readForUpload(dict, []))?.serverDeviceId, device);
    assert.deepEqual(
      read.versions.map((v) => [v.guid, v.version === null]),
      [
        ['g1', false],
        ['g2', true],
      ],
    );
    const before = await store.sync.maxRevision();
    const r = await store.cases.writeUploadIfUnchanged(
      upload(dict, read.versions, [write('g2', '002'), write('g1', '001', { label: 'new' })]),
    );
    assert.equal(r, before + 1);
    assert.equal((await store.cases.get(dict, 'g1'))?.label, 'new');
    assert.equal((await store.cases.get(dict, 'g1'))?.revision, r);
    assert.deepEqual(await positions(store, dict), [
      ['g1', 1],
      ['g2', 2],
    ]);
    const [h] = await store.sync.history(dict, 1);
    assert.deepEqual([h?.device, h?.direction, h?.revision, h?.cases], ['tab', 'put', r, 2]);

    // The same read again is stale: g1 and g2 were written since. Nothing is written, no revision drawn.
    const stale = await store.cases.writeUploadIfUnchanged(upload(dict, read.versions, [write('g1', '001', { label: 'lost' })]));
    assert.equal(stale, undefined);
    assert.equal((await store.cases.get(dict, 'g1'))?.label, 'new');
    assert.equal(await store.sync.maxRevision(), r);
    assert.equal((await store.sync.history(dict, 10)).length, 1);

    // A guid read as absent and stored since is a change too.
    const absent = await store.cases.readForUpload(dict, ['g3']);
    await store.cases.upsert(dict, write('g3', '003'), await store.cases.nextRevision(dict, 'test'), NOW);
    assert.equal(
      await store.cases.writeUploadIfUnchanged(upload(dict, absent!.versions, [write('g3', '003', { label: 'lost' })])),
      undefined,
    );
    assert.equal((await store.cases.get(dict, 'g3'))?.label, 'label 003');
  },
);

test('cases [postgresql]: an upload written in one statement waits for the case write in flight, then finds its read stale', () =>
  onPostgresStore(async (store) => {
    const dict = await dictionary(store, 'D');
    const read = await store.cases.readForUpload(dict, ['g1']);
    const race = await raceTwoTransactions(
      store,
      async (tx) => tx.cases.upsert(dict, write('g1', '001'), await tx.cases.nextRevision(dict, 'sync:a')),
      async (tx) => tx.cases.writeUploadIfUnchanged(upload(dict, read!.versions, [write('g1', '001', { label: 'late' })])),
    );
    assert.equal(race.secondWaited, true);
    assert.equal(ok(race.second), undefined);
    assert.equal((await store.cases.get(dict, 'g1'))?.label, 'label 001');
  }));
