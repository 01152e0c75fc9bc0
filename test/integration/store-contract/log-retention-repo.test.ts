/**
 * The store contract of `store.logRetention` (docs/architecture.md#the-store-contract): every
 * method on the SQLite store and on the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { Store } from '../../../src/store/store-contract.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const byId = <T extends { id: string | number }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Jobs (ended and not), their log entries, a schedule with runs (ended and not). */
async function seed(store: Store) {
  for (const [id, dictionaries] of [
    ['done', ['ALPHA']],
    ['failed', ['ALPHA', 'BETA']],
    ['running', ['BETA']],
    ['pending', ['GAMMA']],
  ] as const) {
    await store.jobs.create({ id, dictionaries: [...dictionaries], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  }
  await store.jobs.finish('done', 'completed');
  await store.jobs.finish('failed', 'failed');
  await store.jobs.markRunning('running', 1);
  const entry = async (jobId: string, createdAt: string) =>
    store.breakoutLog.add({ jobId, dictionary: 'ALPHA', level: 'info', message: jobId, progress: 0, createdAt });
  for (const jobId of ['done', 'done', 'failed', 'running', 'pending']) await entry(jobId, `2025-01-0${jobId.length}T00:00:00.000Z`);

  const { row } = await store.dictionaries.save({
    name: 'ALPHA',
    label: 'ALPHA',
    version: '1',
    description: '',
    source: Buffer.from('x'),
    sourceFormat: 'text',
    syncName: null,
    model: {} as Dictionary,
  });
  const s = await store.schedules.insert(
    { dictionaryId: row.id, enabled: true, cronExpression: '0 2 * * *', nextRun: null },
    '2025-01-01T00:00:00.000Z',
  );
  const run = (outcome: 'succeeded' | 'running' | 'skipped', logFile: string | null, startedAt: string) =>
    store.schedules.addRun({
      scheduleId: s.id,
      trigger: 'scheduled',
      startedAt,
      endedAt: outcome === 'running' ? null : startedAt,
      exitCode: outcome === 'succeeded' ? 0 : null,
      outcome,
      logFile,
      message: null,
      runnerPid: null,
    });
  const runs = [
    await run('succeeded', 'ALPHA-1.log', '2025-01-01T00:00:00.000Z'),
    await run('skipped', null, '2025-01-02T00:00:00.000Z'),
    await run('running', 'ALPHA-3.log', '2025-01-03T00:00:00.000Z'),
  ];
  return { schedule: s, runs };
}

testOnBothStores('logRetention: what retention reads', async (store) => {
  assert.deepEqual(await store.logRetention.jobs(), []);
  assert.deepEqual(await store.logRetention.logEntries(), []);
  assert.deepEqual(await store.logRetention.runs(), []);
  assert.deepEqual(await store.logRetention.scheduleLogFiles(), []);

  const { schedule, runs } = await seed(store);
  const jobs = byId(await store.logRetention.jobs());
  assert.deepEqual(
    jobs.map(({ createdAt, ...j }) => ({ ...j, created: typeof createdAt })),
    [
      {
        id: 'done',
        dictionaries: ['ALPHA'],
        status: 'completed',
        finishedAt: (await store.jobs.get('done'))!.finishedAt,
        created: 'string',
      },
      {
        id: 'failed',
        dictionaries: ['ALPHA', 'BETA'],
        status: 'failed',
        finishedAt: (await store.jobs.get('failed'))!.finishedAt,
        created: 'string',
      },
      { id: 'pending', dictionaries: ['GAMMA'], status: 'pending', finishedAt: null, created: 'string' },
      { id: 'running', dictionaries: ['BETA'], status: 'running', finishedAt: null, created: 'string' },
    ],
  );
  assert.equal(jobs[0]!.createdAt, (await store.jobs.get('done'))!.createdAt);

  const entries = byId(await store.logRetention.logEntries());
  const logged = (await store.breakoutLog.newest({ limit: 10 })).reverse();
  assert.deepEqual(
    entries,
    logged.map((e) => ({ id: e.id, jobId: e.jobId, createdAt: e.createdAt })),
  );
  assert.deepEqual(
    entries.map((e) => e.jobId),
    ['done', 'done', 'failed', 'running', 'pending'],
  );

  assert.deepEqual(byId(await store.logRetention.runs()), [
    {
      id: runs[0],
      scheduleId: schedule.id,
      outcome: 'succeeded',
      startedAt: '2025-01-01T00:00:00.000Z',
      endedAt: '2025-01-01T00:00:00.000Z',
      logFile: 'ALPHA-1.log',
    },
    {
      id: runs[1],
      scheduleId: schedule.id,
      outcome: 'skipped',
      startedAt: '2025-01-02T00:00:00.000Z',
      endedAt: '2025-01-02T00:00:00.000Z',
      logFile: null,
    },
    {
      id: runs[2],
      scheduleId: schedule.id,
      outcome: 'running',
      startedAt: '2025-01-03T00:00:00.000Z',
      endedAt: null,
      logFile: 'ALPHA-3.log',
    },
  ]);

  assert.deepEqual(await store.logRetention.scheduleLogFiles(), []);
  await store.schedules.markStarted(
    schedule.id,
    { lastRun: '2025-01-03T00:00:00.000Z', nextRun: null, logFile: 'ALPHA-3.log' },
    '2025-01-03T00:00:00.000Z',
  );
  assert.deepEqual(await store.logRetention.scheduleLogFiles(), ['ALPHA-3.log']);
});

testOnBothStores('logRetention: delete leaves unfinished jobs and runs alone', async (store) => {
  const { runs } = await seed(store);
  const entries = byId(await store.logRetention.logEntries());
  const nothing = { jobs: 0, jobLogEntries: 0, logEntries: 0, runs: 0 };
  assert.deepEqual(await store.logRetention.delete({ jobs: [], logEntries: [], runs: [] }), nothing);
  assert.deepEqual(await store.logRetention.delete({ jobs: ['nope'], logEntries: [99999], runs: [99999] }), nothing);

  // A rolled back transaction deletes nothing.
  await assert.rejects(
    store.transaction(async (tx) => {
      assert.equal((await tx.logRetention.delete({ jobs: ['done'], logEntries: [], runs: [] })).jobs, 1);
      throw new Error('undo');
    }),
    /undo/,
  );
  assert.equal((await store.logRetention.jobs()).length, 4);

  const deleted = await store.transaction(async (tx) =>
    tx.logRetention.delete({
      // 'failed' twice: counted once.
      jobs: ['done', 'failed', 'running', 'pending', 'failed'],
      logEntries: [entries[0]!.id, entries[3]!.id],
      runs: runs,
    }),
  );
  // Entry 0 (of 'done') went by id; entry 1 (of 'done') and 2 (of 'failed') with their jobs;
  // entry 3 (of the running job) by id; entry 4 (of the pending job) stays with its job.
  assert.deepEqual(deleted, { jobs: 2, jobLogEntries: 2, logEntries: 2, runs: 2 });
  assert.deepEqual((await store.logRetention.jobs()).map((j) => j.id).sort(), ['pending', 'running']);
  assert.deepEqual(
    (await store.logRetention.logEntries()).map((e) => e.id),
    [entries[4]!.id],
  );
  assert.deepEqual(
    (await store.logRetention.runs()).map((r) => r.id),
    [runs[2]],
  );
  assert.deepEqual(await store.logRetention.delete({ jobs: ['done'], logEntries: [entries[0]!.id], runs: [runs[0]!] }), nothing);
});

/** Sync messages received a day apart, oldest first. */
async function messages(store: Store, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= n; i++) {
    ids.push(
      await store.sync.recordMessage(
        { device: 'd1', username: 'u', name: `m${i}`, value: null, sentAt: '' },
        `2025-01-${String(i).padStart(2, '0')}T12:00:00.000Z`,
      ),
    );
  }
  return ids;
}

testOnBothStores('logRetention: sync messages by age and by count', async (store) => {
  assert.equal(await store.logRetention.messagesToPrune('2030-01-01T00:00:00.000Z', 0), 0);
  assert.equal(await store.logRetention.deleteMessages('2030-01-01T00:00:00.000Z', 0), 0);
  await messages(store, 6);
  // By age only (keep more than there are).
  assert.equal(await store.logRetention.messagesToPrune('2025-01-03T12:00:00.000Z', 100), 2, 'before the cutoff, not at it');
  // By count only.
  assert.equal(await store.logRetention.messagesToPrune('2000-01-01T00:00:00.000Z', 4), 2);
  assert.equal(await store.logRetention.messagesToPrune('2000-01-01T00:00:00.000Z', 6), 0);
  assert.equal(await store.logRetention.messagesToPrune('2000-01-01T00:00:00.000Z', 0), 6);
  // Either rule.
  assert.equal(await store.logRetention.messagesToPrune('2025-01-04T00:00:00.000Z', 5), 3);

  assert.equal(await store.logRetention.deleteMessages('2025-01-04T00:00:00.000Z', 5), 3);
  assert.equal(await store.logRetention.messagesToPrune('2025-01-04T00:00:00.000Z', 5), 0);
  assert.equal(await store.sync.countMessages({}), 3);
  assert.deepEqual(
    (await store.sync.messages({}, { limit: 10, offset: 0 })).map((m) => m.name),
    ['m6', 'm5', 'm4'],
  );
  assert.equal(await store.transaction(async (tx) => tx.logRetention.deleteMessages('2000-01-01T00:00:00.000Z', 1)), 2);
  assert.deepEqual(
    (await store.sync.messages({}, { limit: 10, offset: 0 })).map((m) => m.name),
    ['m6'],
  );
});
