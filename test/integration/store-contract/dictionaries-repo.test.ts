/**
 * The store contract of `store.dictionaries` (docs/architecture.md#the-store-contract): every
 * method on the SQLite and the PostgreSQL store, with the same answers; and, on PostgreSQL, the
 * locks of a save and a purge against writers at the same time (docs/decisions.md, "Concurrent
 * writers on the PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { NewDictionary } from '../../../src/store/dictionaries-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';
import { sql } from './case-store-helpers.js';

function dict(name: string, more: Partial<NewDictionary> = {}): NewDictionary {
  return {
    name,
    label: `${name} label`,
    version: '8.0',
    description: `about ${name}`,
    source: Buffer.from(`[Dictionary]\nName=${name}\n\u00e9`),
    sourceFormat: 'text',
    syncName: null,
    model: { name, levels: [{ name: 'L' }] } as unknown as Dictionary,
    ...more,
  };
}

testOnBothStores('dictionaries: save creates then replaces, and every read finds it', async (store) => {
  const first = await store.dictionaries.save(dict('SURVEY', { syncName: 'Survey_Sync', sourceFormat: 'json' }));
  assert.equal(first.created, true);
  assert.deepEqual(
    { ...first.row, createdAt: '', updatedAt: '' },
    {
      id: first.row.id,
      name: 'SURVEY',
      label: 'SURVEY label',
      version: '8.0',
      description: 'about SURVEY',
      sourceFormat: 'json',
      syncName: 'Survey_Sync',
      createdAt: '',
      updatedAt: '',
    },
  );
  assert.equal(first.row.createdAt, first.row.updatedAt);
  assert.deepEqual(await store.dictionaries.find('SURVEY'), first.row);
  assert.deepEqual(await store.dictionaries.resolve('Survey_Sync'), first.row);
  assert.equal(await store.dictionaries.resolve('survey_sync'), undefined, 'the syncable name is found as written');
  assert.equal(await store.dictionaries.find('survey'), undefined);
  assert.deepEqual(await store.dictionaries.findWithModel('SURVEY'), { ...first.row, model: dict('SURVEY').model });
  assert.equal(await store.dictionaries.findWithModel('NONE'), undefined);
  assert.deepEqual(await store.dictionaries.source('SURVEY'), dict('SURVEY').source);
  assert.equal(await store.dictionaries.source('NONE'), undefined);

  await new Promise((resolve) => setTimeout(resolve, 5));
  const bytes = Buffer.from([0, 1, 2, 255]);
  const second = await store.dictionaries.save(
    dict('SURVEY', { label: 'new', version: '8.1', source: bytes, syncName: null, model: { v: 2 } as never }),
  );
  assert.equal(second.created, false);
  assert.equal(second.row.id, first.row.id);
  assert.equal(second.row.createdAt, first.row.createdAt);
  assert.ok(second.row.updatedAt > first.row.updatedAt);
  assert.deepEqual([second.row.label, second.row.version, second.row.syncName, second.row.sourceFormat], ['new', '8.1', null, 'text']);
  assert.deepEqual(await store.dictionaries.source('SURVEY'), bytes);
  assert.deepEqual((await store.dictionaries.findWithModel('SURVEY'))!.model, { v: 2 });
  assert.equal(await store.dictionaries.resolve('Survey_Sync'), undefined);
});

testOnBothStores('dictionaries: the list is in byte order of names; a syncable name is unique whatever its case', async (store) => {
  for (const name of ['b', 'A', 'a', 'B_2']) await store.dictionaries.save(dict(name, { syncName: name === 'a' ? 'Shared' : null }));
  assert.deepEqual(
    (await store.dictionaries.list()).map((d) => d.name),
    ['A', 'B_2', 'a', 'b'],
  );
  await assert.rejects(store.dictionaries.save(dict('c', { syncName: 'SHARED' })));
  assert.equal(await store.dictionaries.find('c'), undefined);
  assert.equal((await store.dictionaries.list()).length, 4);
});

testOnBothStores('dictionaries: delete removes the dictionary and its revisions only', async (store) => {
  const a = (await store.dictionaries.save(dict('A'))).row.id;
  const b = (await store.dictionaries.save(dict('B'))).row.id;
  await store.cases.nextRevision(a, 't');
  await store.cases.nextRevision(b, 't');
  await store.dictionaries.delete(a);
  assert.equal(await store.dictionaries.find('A'), undefined);
  assert.deepEqual(
    (await sql(store, 'SELECT dictionary_id FROM revisions')).map((r) => Number(r.dictionary_id)),
    [b],
  );
  assert.ok(await store.dictionaries.find('B'));
  await store.dictionaries.delete(12345);
});

testOnBothStores('dictionaries: GPS items are set, replaced, cleared, and go with their dictionary', async (store) => {
  const a = (await store.dictionaries.save(dict('A'))).row.id;
  const b = (await store.dictionaries.save(dict('B'))).row.id;
  assert.equal(await store.dictionaries.gps(a), undefined);
  assert.equal(await store.dictionaries.setGps(a, { latitude: 'LAT', longitude: 'LON' }), false, 'none before');
  const first = (await store.dictionaries.gps(a))!;
  assert.deepEqual({ ...first, updatedAt: '' }, { latitude: 'LAT', longitude: 'LON', updatedAt: '' });
  assert.match(first.updatedAt, /^\d{4}-\d{2}-\d{2}T/);
  assert.equal(await store.dictionaries.setGps(a, { latitude: 'Y', longitude: 'X' }), true, 'replaced');
  assert.deepEqual({ ...(await store.dictionaries.gps(a))!, updatedAt: '' }, { latitude: 'Y', longitude: 'X', updatedAt: '' });
  assert.equal(await store.dictionaries.setGps(b, { latitude: 'B1', longitude: 'B2' }), false);
  assert.equal(await store.dictionaries.setGps(a, null), true, 'cleared');
  assert.equal(await store.dictionaries.gps(a), undefined);
  assert.equal(await store.dictionaries.setGps(a, null), false, 'nothing to clear');
  assert.equal((await store.dictionaries.gps(b))?.latitude, 'B1', 'the other dictionary keeps its own');
  await store.dictionaries.delete(b);
  assert.deepEqual(await sql(store, 'SELECT dictionary_id FROM dictionary_gps'), [], 'deleted with its dictionary');
});

const T = '2026-01-01T00:00:00Z';

/** Rows of every kind a purge removes, for dictionary `name` (id `id`), and a job `job` of it alone. */
async function rowsOf(store: Store, id: number, name: string, job: string): Promise<void> {
  await store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(id, 't');
    const blank = { label: '', data: '{}', verified: false, clock: [], partialSave: null, notes: [] };
    await tx.cases.upsert(id, { guid: `${name}1`, caseKey: '1', deleted: false, ...blank }, r);
    await tx.cases.upsert(id, { guid: `${name}2`, caseKey: '2', deleted: true, ...blank }, r);
    await tx.cases.upsert(id, { guid: `${name}3`, caseKey: '3', deleted: true, ...blank }, r);
  });
  const run = (query: string, ...params: unknown[]) => sql(store, query, params);
  await run('INSERT INTO schedules (dictionary_id, modified_time, created_time) VALUES (?, ?, ?)', id, T, T);
  const [schedule] = await run('SELECT id FROM schedules WHERE dictionary_id = ?', id);
  for (const log of [`${name}/run1.log`, null, `${name}/run2.log`]) {
    await run(
      `INSERT INTO schedule_runs (schedule_id, trigger, started_at, outcome, log_file) VALUES (?, 'scheduled', ?, 'succeeded', ?)`,
      schedule!.id,
      T,
      log,
    );
  }
  await run(`INSERT INTO sync_devices (device_id, first_seen, last_seen) VALUES ('dev', ?, ?) ON CONFLICT (device_id) DO NOTHING`, T, T);
  await run(`INSERT INTO sync_history (dictionary_id, device_id, direction, revision, created_at) VALUES (?, 'dev', 'put', 1, ?)`, id, T);
  await run(
    `INSERT INTO jobs (id, dictionaries, mode, threads, origin, status, created_at) VALUES (?, ?, 'full', 1, 'cli', 'completed', ?)`,
    job,
    JSON.stringify([name]),
    T,
  );
  for (const message of ['one', 'two']) {
    await run(
      `INSERT INTO breakout_log (job_id, dictionary, level, message, progress, created_at) VALUES (?, ?, 'info', ?, 0, ?)`,
      job,
      name,
      message,
      T,
    );
  }
  await run(
    `INSERT INTO breakout_state (dictionary_id, target, structure_hash, tables, updated_at) VALUES (?, 'sqlite', 'h', '[]', ?)`,
    id,
    T,
  );
  await run('INSERT INTO breakout_follow_ups (dictionary_id, requested_at) VALUES (?, ?)', id, T);
  await run(`INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name) VALUES ('case', 1, ?, ?)`, id, name);
  await run(`INSERT INTO targets (dictionary_id, type, created_at, updated_at) VALUES (?, 'sqlite', ?, ?)`, id, T, T);
}

const TABLES = [
  'cases',
  'case_counts',
  'revisions',
  'schedules',
  'sync_history',
  'breakout_state',
  'breakout_follow_ups',
  'webhook_outbox',
  'targets',
];

async function tally(store: Store, id: number): Promise<number[]> {
  const out: number[] = [];
  for (const t of TABLES) out.push(Number((await sql(store, `SELECT count(*) AS n FROM ${t} WHERE dictionary_id = ?`, [id]))[0]!.n));
  return out;
}

testOnBothStores('dictionaries: purge removes everything of one dictionary, counts it, and names its log files', async (store) => {
  const d = (await store.dictionaries.save(dict('D'))).row.id;
  const e = (await store.dictionaries.save(dict('E'))).row.id;
  await rowsOf(store, d, 'D', 'job-d');
  await rowsOf(store, e, 'E', 'job-e');
  // A finished job of both dictionaries is kept; an unfinished one of another blocks nothing.
  await sql(
    store,
    `INSERT INTO jobs (id, dictionaries, mode, threads, origin, status, created_at) VALUES ('job-de', '["D","E"]', 'full', 1, 'cli', 'completed', ?)`,
    [T],
  );
  await sql(
    store,
    `INSERT INTO jobs (id, dictionaries, mode, threads, origin, status, created_at) VALUES ('job-x', '["X"]', 'full', 1, 'cli', 'running', ?)`,
    [T],
  );
  const before = await tally(store, e);

  const result = await store.dictionaries.purge(d, 'D');
  assert.deepEqual(result, {
    counts: {
      cases: 3,
      deleted_cases: 2,
      revisions: 1,
      schedules: 1,
      schedule_runs: 3,
      sync_history: 1,
      breakout_jobs: 1,
      breakout_log_entries: 2,
      breakout_state: 1,
      webhook_events: 1,
      target: 1,
    },
    scheduleLogs: ['D/run1.log', 'D/run2.log'],
    jobIds: ['job-d'],
  });
  assert.equal(await store.dictionaries.find('D'), undefined);
  assert.deepEqual(
    await tally(store, d),
    TABLES.map(() => 0),
  );
  assert.deepEqual(await tally(store, e), before, "the other dictionary's rows stay");
  assert.deepEqual(
    (await sql(store, 'SELECT id FROM jobs ORDER BY id')).map((r) => r.id),
    ['job-de', 'job-e', 'job-x'],
  );
  assert.deepEqual(
    (await sql(store, 'SELECT dictionary FROM breakout_log')).map((r) => r.dictionary),
    ['E', 'E'],
  );
  assert.equal((await sql(store, 'SELECT count(*) AS n FROM schedule_runs'))[0]!.n, 3);
  assert.ok(await store.dictionaries.find('E'));
});

testOnBothStores('dictionaries: purge is refused while a breakout job of the dictionary is pending or running', async (store) => {
  const d = (await store.dictionaries.save(dict('D'))).row.id;
  await rowsOf(store, d, 'D', 'job-d');
  await sql(
    store,
    `INSERT INTO jobs (id, dictionaries, mode, threads, origin, status, created_at) VALUES ('job-p', '["E","D"]', 'full', 1, 'cli', 'pending', ?)`,
    [T],
  );
  assert.deepEqual(await store.dictionaries.purge(d, 'D'), { busy: { kind: 'job', id: 'job-p', status: 'pending' } });
  assert.equal(await store.cases.count(d), 3, 'nothing was removed');
  await sql(store, `UPDATE jobs SET status = 'running' WHERE id = 'job-p'`);
  assert.deepEqual(await store.dictionaries.purge(d, 'D'), { busy: { kind: 'job', id: 'job-p', status: 'running' } });
  await sql(store, `UPDATE jobs SET status = 'failed' WHERE id = 'job-p'`);
  assert.equal(((await store.dictionaries.purge(d, 'D')) as { counts: { cases: number } }).counts.cases, 3);
});

/** The value of a settled promise; its reason thrown when it failed. */
function ok<T>(settled: PromiseSettledResult<T>): T {
  if (settled.status === 'rejected') throw settled.reason;
  return settled.value;
}

test('dictionaries [postgresql]: two saves of one new dictionary at once: one creates it, the other replaces it', () =>
  onPostgresStore(async (store) => {
    const race = await raceTwoTransactions(
      store,
      (tx) => tx.dictionaries.save(dict('N', { label: 'first' })),
      (tx) => tx.dictionaries.save(dict('N', { label: 'second' })),
    );
    assert.equal(race.secondWaited, true);
    assert.deepEqual([ok(race.first).created, ok(race.second).created], [true, false]);
    assert.equal((await store.dictionaries.find('N'))!.label, 'second');
    assert.equal((await store.dictionaries.list()).length, 1);
  }));

test('dictionaries [postgresql]: a purge waits for a job queued meanwhile, then refuses', () =>
  onPostgresStore(async (store) => {
    const d = (await store.dictionaries.save(dict('D'))).row.id;
    const race = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.create({ id: 'j', dictionaries: ['D'], mode: 'full', threads: 1, overwrite: false, origin: 'api' }),
      (tx) => tx.dictionaries.purge(d, 'D'),
    );
    assert.equal(race.secondWaited, true);
    assert.deepEqual(ok(race.second), { busy: { kind: 'job', id: 'j', status: 'pending' } });
    assert.ok(await store.dictionaries.find('D'));
  }));

test('dictionaries [postgresql]: a purge waits for a case write in flight, then removes and counts it', () =>
  onPostgresStore(async (store) => {
    const d = (await store.dictionaries.save(dict('D'))).row.id;
    const blank = { label: '', data: '{}', verified: false, deleted: false, clock: [], partialSave: null, notes: [] };
    const race = await raceTwoTransactions(
      store,
      async (tx) => tx.cases.upsert(d, { guid: 'g', caseKey: 'k', ...blank }, await tx.cases.nextRevision(d, 'sync:a')),
      (tx) => tx.dictionaries.purge(d, 'D'),
    );
    assert.equal(race.secondWaited, true);
    const result = ok(race.second) as { counts: { cases: number; revisions: number } };
    assert.deepEqual([result.counts.cases, result.counts.revisions], [1, 1]);
    assert.equal(await store.dictionaries.find('D'), undefined);
  }));
