/**
 * The store contract of `store.schedules` (docs/architecture.md#the-store-contract): every method
 * on the SQLite store and on the PostgreSQL store, with the same answers, and the claim of a run
 * with several writers (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimScheduleRun } from '../../../src/core/scheduler/run-schedule.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { ScheduleRow, ScheduleRunRow } from '../../../src/store/schedules-repo.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import type { Store, StoreScope } from '../../../src/store/store-contract.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T01:00:00.000Z';
const T2 = '2025-01-01T02:00:00.000Z';

/** A dictionary row for schedules to point at. */
async function dictionary(store: Store, name: string): Promise<number> {
  const saved = await store.dictionaries.save({
    name,
    label: name,
    version: '1',
    description: '',
    source: Buffer.from(name),
    sourceFormat: 'text',
    syncName: null,
    model: {} as Dictionary,
  });
  return saved.row.id;
}

const run = (scheduleId: number, extra: Partial<ScheduleRunRow> = {}): Omit<ScheduleRunRow, 'id'> => ({
  scheduleId,
  trigger: 'scheduled',
  startedAt: T0,
  endedAt: null,
  exitCode: null,
  outcome: 'running',
  logFile: null,
  message: null,
  runnerPid: 77,
  runnerHost: 'node-a',
  ...extra,
});

testOnBothStores('schedules: insert, read, update and remove', async (store) => {
  const beta = await dictionary(store, 'BETA');
  const alpha = await dictionary(store, 'ALPHA');
  const gamma = await dictionary(store, 'GAMMA');
  assert.deepEqual(await store.schedules.list(), []);
  assert.equal(await store.schedules.get(1), undefined);
  assert.equal(await store.schedules.forDictionary(beta), undefined);

  const b = await store.schedules.insert({ dictionaryId: beta, enabled: true, cronExpression: '0 2 * * *', nextRun: T1 }, T0);
  assert.deepEqual(
    { ...b, id: 0 },
    {
      id: 0,
      dictionaryId: beta,
      dictionary: 'BETA',
      enabled: true,
      cronExpression: '0 2 * * *',
      lastRun: null,
      nextRun: T1,
      lastExitCode: null,
      lastLogFile: null,
      modifiedTime: T0,
      createdTime: T0,
    },
  );
  const a = await store.schedules.insert({ dictionaryId: alpha, enabled: true, cronExpression: '5 * * * *', nextRun: T1 }, T0);
  const g = await store.schedules.insert({ dictionaryId: gamma, enabled: false, cronExpression: '0 3 * * *', nextRun: null }, T0);
  assert.ok(a.id > b.id && g.id > a.id, 'ids grow');
  assert.deepEqual(await store.schedules.get(b.id), b);
  assert.deepEqual(await store.schedules.forDictionary(alpha), a);
  assert.deepEqual(await store.schedules.list(), [a, b, g], 'by dictionary name');

  // One schedule per dictionary: the second fails with SQLite's UNIQUE message (callers match it),
  // and inside a transaction the failure does not end the transaction.
  await assert.rejects(
    store.schedules.insert({ dictionaryId: beta, enabled: false, cronExpression: '1 1 * * *', nextRun: null }, T1),
    /UNIQUE/,
  );
  await store.transaction(async (tx) => {
    await assert.rejects(
      tx.schedules.insert({ dictionaryId: beta, enabled: false, cronExpression: '1 1 * * *', nextRun: null }, T1),
      /UNIQUE/,
    );
    await tx.schedules.setNextRun(g.id, T2, T1);
  });
  assert.equal((await store.schedules.get(g.id))!.nextRun, T2);
  assert.equal((await store.schedules.get(b.id))!.cronExpression, '0 2 * * *');

  // Due: enabled, next run at or before now, oldest due first then by name.
  await store.schedules.setNextRun(b.id, T0, T1);
  assert.deepEqual(
    (await store.schedules.due(T0)).map((s) => s.dictionary),
    ['BETA'],
  );
  assert.deepEqual(
    (await store.schedules.due(T1)).map((s) => s.dictionary),
    ['BETA', 'ALPHA'],
  );
  assert.deepEqual(
    (await store.schedules.due(T2)).map((s) => s.dictionary),
    ['BETA', 'ALPHA'],
    'a disabled schedule is never due',
  );
  assert.deepEqual(await store.schedules.due('2024-12-31T23:59:59.999Z'), []);

  const updated = await store.schedules.update(g.id, { enabled: true, cronExpression: '*/5 * * * *', nextRun: T0 }, T2);
  assert.deepEqual(updated, { ...g, enabled: true, cronExpression: '*/5 * * * *', nextRun: T0, modifiedTime: T2 });
  assert.deepEqual(
    (await store.schedules.due(T0)).map((s) => s.dictionary),
    ['BETA', 'GAMMA'],
  );
  assert.equal(await store.schedules.update(9999, { enabled: true, cronExpression: '* * * * *', nextRun: null }, T2), undefined);

  assert.equal(await store.schedules.remove(a.id), true);
  assert.equal(await store.schedules.remove(a.id), false);
  assert.deepEqual(
    (await store.schedules.list()).map((s) => s.dictionary),
    ['BETA', 'GAMMA'],
  );
});

testOnBothStores('schedules: a run started and ended on the schedule', async (store) => {
  const s = await store.schedules.insert(
    { dictionaryId: await dictionary(store, 'ALPHA'), enabled: true, cronExpression: '0 2 * * *', nextRun: T0 },
    T0,
  );
  await store.schedules.markStarted(s.id, { lastRun: T1, nextRun: T2, logFile: 'ALPHA-1.log' }, T1);
  assert.deepEqual(await store.schedules.get(s.id), {
    ...s,
    lastRun: T1,
    nextRun: T2,
    lastExitCode: -1,
    lastLogFile: 'ALPHA-1.log',
    modifiedTime: T1,
  });
  // undefined leaves next_run; null clears it.
  await store.schedules.markEnded(s.id, 0, T2);
  assert.deepEqual(await store.schedules.get(s.id), {
    ...s,
    lastRun: T1,
    nextRun: T2,
    lastExitCode: 0,
    lastLogFile: 'ALPHA-1.log',
    modifiedTime: T2,
  });
  await store.schedules.markEnded(s.id, null, T2, null);
  const ended = (await store.schedules.get(s.id))!;
  assert.deepEqual([ended.lastExitCode, ended.nextRun], [null, null]);
  await store.schedules.markEnded(s.id, 3, T2, T0);
  assert.deepEqual([(await store.schedules.get(s.id))!.lastExitCode, (await store.schedules.get(s.id))!.nextRun], [3, T0]);
  await store.schedules.setNextRun(s.id, null, T0);
  const moved = (await store.schedules.get(s.id))!;
  assert.deepEqual([moved.nextRun, moved.modifiedTime], [null, T0]);
});

testOnBothStores('schedules: the runs of a schedule, newest first, and their pruning', async (store) => {
  const s1 = await store.schedules.insert(
    { dictionaryId: await dictionary(store, 'ALPHA'), enabled: true, cronExpression: '0 2 * * *', nextRun: T0 },
    T0,
  );
  const s2 = await store.schedules.insert(
    { dictionaryId: await dictionary(store, 'BETA'), enabled: true, cronExpression: '0 2 * * *', nextRun: T0 },
    T0,
  );
  assert.equal(await store.schedules.getRun(1), undefined);
  assert.equal(await store.schedules.latestRun(s1.id), undefined);
  assert.deepEqual(await store.schedules.runs(s1.id, 10), []);
  assert.equal(await store.schedules.countRuns(s1.id), 0);
  assert.deepEqual(await store.schedules.pruneRuns(s1.id, 5), []);

  const ids: number[] = [];
  ids.push(
    await store.schedules.addRun(run(s1.id, { outcome: 'succeeded', endedAt: T1, exitCode: 0, logFile: 'a-0.log', runnerPid: null })),
  );
  ids.push(await store.schedules.addRun(run(s1.id, { outcome: 'skipped', endedAt: T0, message: 'skipped: busy', runnerPid: null })));
  ids.push(await store.schedules.addRun(run(s2.id, { trigger: 'run-now' })));
  ids.push(await store.schedules.addRun(run(s1.id, { outcome: 'failed', endedAt: T2, exitCode: 2, logFile: 'a-2.log', runnerPid: null })));
  ids.push(await store.schedules.addRun(run(s1.id, { startedAt: T2 })));
  assert.deepEqual(
    ids,
    [...ids].sort((x, y) => x - y),
  );
  assert.equal(new Set(ids).size, 5);

  const r4: ScheduleRunRow = { id: ids[4]!, ...run(s1.id, { startedAt: T2 }) };
  assert.deepEqual(await store.schedules.getRun(ids[4]!), r4);
  assert.deepEqual(await store.schedules.latestRun(s1.id), r4);
  assert.deepEqual(
    (await store.schedules.runs(s1.id, 10)).map((r) => r.id),
    [ids[4], ids[3], ids[1], ids[0]],
  );
  assert.deepEqual(
    (await store.schedules.runs(s1.id, 2)).map((r) => r.id),
    [ids[4], ids[3]],
  );
  assert.deepEqual((await store.schedules.runs(s1.id, -1)).length, 4, "SQLite's LIMIT -1: all");
  assert.equal(await store.schedules.countRuns(s1.id), 4);
  assert.equal(await store.schedules.countRuns(s2.id), 1);
  assert.deepEqual(
    (await store.schedules.runningRuns()).map((r) => [r.id, r.scheduleId, r.trigger]),
    [
      [ids[2], s2.id, 'run-now'],
      [ids[4], s1.id, 'scheduled'],
    ],
  );
  assert.deepEqual((await store.schedules.getRun(ids[1]!))!.message, 'skipped: busy');

  // Adopting: only a run still running.
  assert.equal(await store.schedules.adoptRun(ids[4]!, { runnerPid: 88, logFile: 'a-4.log', startedAt: T1 }), true);
  assert.deepEqual(await store.schedules.getRun(ids[4]!), { ...r4, runnerPid: 88, logFile: 'a-4.log', startedAt: T1 });
  // The runner's host is recorded when given (migration 0029), kept when not.
  assert.equal(await store.schedules.adoptRun(ids[2]!, { runnerPid: 99, runnerHost: 'node-b', logFile: null, startedAt: T1 }), true);
  assert.deepEqual(
    [(await store.schedules.getRun(ids[2]!))!.runnerPid, (await store.schedules.getRun(ids[2]!))!.runnerHost],
    [99, 'node-b'],
  );
  const { runnerHost: _unknown, ...hostless } = run(s2.id);
  const legacy = await store.schedules.addRun(hostless);
  assert.equal((await store.schedules.getRun(legacy))!.runnerHost, null, 'a run added without a host has none');
  await store.schedules.endRun(legacy, { endedAt: T1, exitCode: 0, outcome: 'succeeded', message: null });
  assert.equal(await store.schedules.adoptRun(ids[0]!, { runnerPid: 88, logFile: 'x.log', startedAt: T1 }), false);
  assert.equal(await store.schedules.adoptRun(9999, { runnerPid: 88, logFile: 'x.log', startedAt: T1 }), false);

  // Ending: only once.
  const end = { endedAt: T2, exitCode: 1, outcome: 'interrupted' as const, message: 'stopped' };
  assert.equal(await store.schedules.endRun(ids[4]!, end), true);
  assert.equal(await store.schedules.endRun(ids[4]!, { ...end, outcome: 'succeeded', exitCode: 0 }), false);
  assert.deepEqual(await store.schedules.getRun(ids[4]!), { ...r4, runnerPid: 88, logFile: 'a-4.log', startedAt: T1, ...end });
  assert.deepEqual(
    (await store.schedules.runningRuns()).map((r) => r.id),
    [ids[2]],
  );

  // Pruning keeps the newest; the log files of the runs removed come back newest first.
  assert.deepEqual(await store.schedules.pruneRuns(s1.id, 10), []);
  assert.deepEqual(await store.schedules.pruneRuns(s1.id, 1), ['a-2.log', 'a-0.log']);
  assert.deepEqual(
    (await store.schedules.runs(s1.id, 10)).map((r) => r.id),
    [ids[4]],
  );
  assert.equal(await store.schedules.countRuns(s2.id), 2, "another schedule's runs stay");
  assert.deepEqual(await store.schedules.pruneRuns(s1.id, 0), ['a-4.log']);
  assert.equal(await store.schedules.countRuns(s1.id), 0);

  // Removing a schedule removes its runs.
  await store.schedules.remove(s2.id);
  assert.equal(await store.schedules.getRun(ids[2]!), undefined);
});

/** The check-and-claim of claimScheduleRun (its busy check, then the run), in the caller's transaction. */
async function claim(tx: StoreScope, s: ScheduleRow, pid: number): Promise<number | 'busy'> {
  const job = (await tx.jobs.unfinished()).find((j) => j.dictionaries.includes(s.dictionary));
  const running = (await tx.schedules.runningRuns()).find((r) => r.scheduleId === s.id);
  if (job || running) return 'busy';
  return tx.schedules.addRun(run(s.id, { runnerPid: pid }));
}

testOnBothStores("schedules: of many of sds's claims of one schedule at once, exactly one wins", async (store) => {
  const s = await store.schedules.insert(
    { dictionaryId: await dictionary(store, 'ALPHA'), enabled: true, cronExpression: '0 2 * * *', nextRun: T0 },
    T0,
  );
  const claims = await Promise.all(Array.from({ length: 6 }, () => claimScheduleRun(store, s, 'run-now', new Date(T2))));
  assert.equal(claims.filter((c) => 'runId' in c).length, 1);
  assert.equal(claims.filter((c) => 'busy' in c).length, 5);
  assert.equal((await store.schedules.runningRuns()).length, 1);
});

// Two transactions open at once on two connections (docs/decisions.md, "Concurrent writers on
// the PostgreSQL store"): the second must wait for the first and then see what it wrote.

/** A store with the schedule of dictionary ALPHA. */
async function withSchedule(fn: (store: PostgresStore, s: ScheduleRow) => Promise<void>): Promise<void> {
  await onPostgresStore(async (store) => {
    const s = await store.schedules.insert(
      { dictionaryId: await dictionary(store, 'ALPHA'), enabled: true, cronExpression: '0 2 * * *', nextRun: T0 },
      T0,
    );
    await fn(store, s);
  });
}

test('schedules [postgresql]: of two claims of one schedule run at once, exactly one wins', () =>
  withSchedule(async (store, s) => {
    const race = await raceTwoTransactions(
      store,
      (tx) => claim(tx, s, 1),
      (tx) => claim(tx, s, 2),
    );
    assert.equal(race.secondWaited, true, 'the second check waited for the first claim');
    assert.equal(race.first.status === 'fulfilled' && typeof race.first.value, 'number');
    assert.deepEqual(race.second, { status: 'fulfilled', value: 'busy' });
    assert.deepEqual(
      (await store.schedules.runningRuns()).map((r) => r.runnerPid),
      [1],
    );

    // A check that reads the running runs first holds the claim as well.
    await store.schedules.endRun((await store.schedules.runningRuns())[0]!.id, {
      endedAt: T1,
      exitCode: 0,
      outcome: 'succeeded',
      message: null,
    });
    const reversed = await raceTwoTransactions(
      store,
      async (tx) => ((await tx.schedules.runningRuns()).length === 0 ? tx.schedules.addRun(run(s.id, { runnerPid: 3 })) : 'busy'),
      (tx) => claim(tx, s, 4),
    );
    assert.equal(reversed.secondWaited, true, 'the second check waited for the first claim');
    assert.deepEqual(reversed.second, { status: 'fulfilled', value: 'busy' });
    assert.deepEqual(
      (await store.schedules.runningRuns()).map((r) => r.runnerPid),
      [3],
    );
  }));

test('schedules [postgresql]: a run is not claimed while a breakout job of its dictionary is being created', () =>
  withSchedule(async (store, s) => {
    const race = await raceTwoTransactions(
      store,
      (tx) => tx.jobs.createExclusive({ id: 'job-1', dictionaries: ['ALPHA'], mode: 'full', threads: 1, overwrite: false, origin: 'test' }),
      (tx) => claim(tx, s, 1),
    );
    assert.equal(race.secondWaited, true, 'the claim waited for the job');
    assert.equal(race.first.status === 'fulfilled' && 'job' in race.first.value, true);
    assert.deepEqual(race.second, { status: 'fulfilled', value: 'busy' });
    assert.deepEqual(await store.schedules.runningRuns(), []);
  }));

test('schedules [postgresql]: two adds of one dictionary at once, two ends of one run at once', () =>
  onPostgresStore(async (store) => {
    const alpha = await dictionary(store, 'ALPHA');
    const add = (i: number) => (tx: StoreScope) =>
      tx.schedules.insert({ dictionaryId: alpha, enabled: false, cronExpression: `${i} 2 * * *`, nextRun: null }, T0);
    const adds = await raceTwoTransactions(store, add(1), add(2));
    assert.equal(adds.secondWaited, true, 'the second add waited for the first');
    assert.equal(adds.first.status, 'fulfilled');
    assert.match(String(adds.second.status === 'rejected' && adds.second.reason), /UNIQUE/);
    assert.deepEqual(
      (await store.schedules.list()).map((x) => x.cronExpression),
      ['1 2 * * *'],
    );

    const s = (await store.schedules.forDictionary(alpha))!;
    const id = await store.schedules.addRun(run(s.id));
    // The runner and a reaper end the run at once: one of them records its end.
    const end = (outcome: 'succeeded' | 'failed') => (tx: StoreScope) =>
      tx.schedules.endRun(id, { endedAt: T1, exitCode: null, outcome, message: null });
    const ends = await raceTwoTransactions(store, end('succeeded'), end('failed'));
    assert.equal(ends.secondWaited, true, 'the second end waited for the first');
    assert.deepEqual(
      [ends.first, ends.second],
      [
        { status: 'fulfilled', value: true },
        { status: 'fulfilled', value: false },
      ],
    );
    assert.equal((await store.schedules.getRun(id))!.outcome, 'succeeded');

    // An adoption and an end at once: the adoption waits and finds the run ended.
    const id2 = await store.schedules.addRun(run(s.id));
    const adopt = await raceTwoTransactions(
      store,
      (tx) => tx.schedules.endRun(id2, { endedAt: T1, exitCode: null, outcome: 'failed', message: 'reaped' }),
      (tx) => tx.schedules.adoptRun(id2, { runnerPid: 9, logFile: 'x.log', startedAt: T2 }),
    );
    assert.equal(adopt.secondWaited, true, 'the adoption waited for the end');
    assert.deepEqual(adopt.second, { status: 'fulfilled', value: false });
    assert.deepEqual([(await store.schedules.getRun(id2))!.runnerPid, (await store.schedules.getRun(id2))!.message], [77, 'reaped']);
  }));
