import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uploadDictionary, deleteDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { purgeDictionary } from '../../../src/core/dictionary-purge/purge.js';
import { jobLogPath } from '../../../src/core/breakout/jobs/job-process.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { seedPopstan } from '../../helpers/http-server.js';
import { fixture, storeKindOf, storeSql, tempStore } from '../../helpers/temp-home.js';

const count = async (store: Store, sql: string, ...args: unknown[]) => Number((await storeSql(store, sql, args))[0]!.n);

/** Gives the dictionary one of everything a purge removes, and returns the log files made. */
async function furnish(store: Store, name: string, other: string): Promise<{ logs: string[] }> {
  const id = (await store.dictionaries.find(name))!.id;
  const now = new Date().toISOString();
  const guid = (await storeSql(store, 'SELECT guid FROM cases WHERE dictionary_id = ? LIMIT 1', [id]))[0]!.guid as string;
  await storeSql(store, 'UPDATE cases SET deleted = 1 WHERE dictionary_id = ? AND guid = ?', [id, guid]);
  const schedule = await store.schedules.insert({ dictionaryId: id, enabled: true, cronExpression: '0 * * * *', nextRun: null }, now);
  mkdirSync(store.home.breakoutLogs, { recursive: true });
  writeFileSync(join(store.home.breakoutLogs, 'run-1.log'), 'log');
  await store.schedules.addRun({
    scheduleId: schedule.id,
    trigger: 'scheduled',
    startedAt: now,
    endedAt: now,
    exitCode: 0,
    outcome: 'succeeded',
    logFile: 'run-1.log',
    message: null,
    runnerPid: null,
  });
  await storeSql(store, `INSERT INTO sync_devices (device_id, first_seen, last_seen) VALUES ('dev1', ?, ?)`, [now, now]);
  await storeSql(
    store,
    `INSERT INTO sync_history (dictionary_id, device_id, direction, revision, created_at) VALUES (?, 'dev1', 'put', 1, ?)`,
    [id, now],
  );
  await store.jobs.create({ id: 'own', dictionaries: [name], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  await store.jobs.finish('own', 'completed');
  writeFileSync(jobLogPath(store, 'own'), 'job log');
  await store.jobs.create({ id: 'shared', dictionaries: [name, other], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
  await store.jobs.finish('shared', 'completed');
  const log = `INSERT INTO breakout_log (job_id, dictionary, level, message, progress, created_at) VALUES (?, ?, 'info', 'x', 0, ?)`;
  await storeSql(store, log, ['shared', name, now]);
  await storeSql(store, log, ['shared', other, now]);
  await storeSql(
    store,
    `INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name, guid) VALUES ('case', 1, ?, ?, ?)`,
    [id, name, guid],
  );
  await store.breakoutState.reset(id, 'sqlite:x', 'h', ['popstan_cases', 'popstan_person'], 'shared');
  return { logs: [join(store.home.breakoutLogs, 'run-1.log'), jobLogPath(store, 'own')] };
}

test('purge removes cases with tombstones, schedules, runs and their logs, sync history, own jobs and log entries, webhook events; other dictionaries keep theirs', async () => {
  const t = await tempStore();
  try {
    const name = await seedPopstan(t.store);
    const other = (await uploadDictionary(t.store, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' })).name;
    const id = (await t.store.dictionaries.find(name))!.id;
    const total = await t.store.cases.count(id);
    assert.ok(total > 0);
    const { logs } = await furnish(t.store, name, other);
    await assert.rejects(deleteDictionary(t.store, name), (e: AppError) => e.code === 'DICT_IN_USE');
    const r = await purgeDictionary(t.store, name);
    assert.equal(r.removed.cases, total);
    assert.equal(r.removed.deleted_cases, 1);
    assert.equal(r.removed.schedules, 1);
    assert.equal(r.removed.schedule_runs, 1);
    assert.equal(r.removed.sync_history, 1);
    assert.equal(r.removed.breakout_jobs, 1, 'the job of this dictionary alone');
    assert.equal(r.removed.breakout_log_entries, 1);
    assert.equal(r.removed.webhook_events, 1);
    assert.equal(r.removed.log_files, 2);
    assert.deepEqual(r.dropped_tables, []);
    assert.equal(r.removed.breakout_state, 1);
    assert.deepEqual(r.tables_left, ['popstan_cases', 'popstan_person'], 'tables the store knew of are named as left in the target');
    assert.equal(await t.store.dictionaries.find(name), undefined);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM cases WHERE dictionary_id = ?', id), 0);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM revisions WHERE dictionary_id = ?', id), 0);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM case_counts WHERE dictionary_id = ?', id), 0);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM schedules'), 0);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM schedule_runs'), 0);
    assert.ok(logs.every((f) => !existsSync(f)));
    assert.ok(await t.store.jobs.get('shared'), 'a job of several dictionaries stays');
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM breakout_log WHERE dictionary = ?', other), 1);
    assert.ok(await t.store.dictionaries.find(other));
    // SQLite checks foreign keys only when asked; PostgreSQL refuses a dangling one at each write.
    if (storeKindOf(t.store) === 'sqlite') assert.equal(await count(t.store, 'SELECT count(*) AS n FROM pragma_foreign_key_check'), 0);
  } finally {
    await t.cleanup();
  }
});

test('a running breakout job of the dictionary refuses the purge with BREAKOUT_BUSY and nothing is removed', async () => {
  const t = await tempStore();
  try {
    const name = await seedPopstan(t.store);
    const id = (await t.store.dictionaries.find(name))!.id;
    const before = await t.store.cases.count(id);
    // A job with a live pid (this process) is not reaped as dead.
    await t.store.jobs.create({ id: 'busy', dictionaries: [name], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
    await t.store.jobs.markRunning('busy', process.pid);
    await assert.rejects(
      purgeDictionary(t.store, name),
      (e: AppError) => e.code === 'BREAKOUT_BUSY' && e.details.job_id === 'busy' && /busy/.test(e.message),
    );
    assert.equal(await t.store.cases.count(id), before);
  } finally {
    await t.cleanup();
  }
});

test('a 100,000-case dictionary is purged whole in one call (how long it takes is a measure, noted in docs/decisions.md, not a test)', async () => {
  const t = await tempStore();
  try {
    const name = await seedPopstan(t.store);
    const id = (await t.store.dictionaries.find(name))!.id;
    const row = (await storeSql(t.store, 'SELECT * FROM cases WHERE dictionary_id = ? LIMIT 1', [id]))[0]!;
    // Each case needs a position of its own (migration 0020): after the seeded ones.
    const last = Number((await storeSql(t.store, 'SELECT max(position) AS p FROM cases WHERE dictionary_id = ?', [id]))[0]!.p);
    // In statements of 5,000 cases, as imports and uploads write them (500 a transaction): on
    // PostgreSQL the case count trigger updates one row once per case, and 100,000 updates of one
    // row in one statement walk an ever longer chain of its versions (minutes, not seconds).
    for (let from = 0; from < 100_000; from += 5_000) {
      await storeSql(
        t.store,
        `WITH RECURSIVE n(i) AS (SELECT CAST(? AS bigint) + 1 UNION ALL SELECT i + 1 FROM n WHERE i < CAST(? AS bigint) + 5000)
         INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, created_at, modified_at, position)
         SELECT ?, 'g' || i, 'k' || i, ?, ?, 0, CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, ?, ?, ?, ?, ?, ?, CAST(? AS bigint) + i FROM n`,
        [from, from, id, row.label, row.data, row.revision, row.clock, row.partial_save, row.notes, row.created_at, row.modified_at, last],
      );
    }
    const total = await t.store.cases.count(id);
    assert.ok(total >= 100_000);
    const r = await purgeDictionary(t.store, name);
    assert.equal(r.removed.cases, total);
    assert.equal(await count(t.store, 'SELECT count(*) AS n FROM cases WHERE dictionary_id = ?', id), 0);
  } finally {
    await t.cleanup();
  }
});

test('a schedule run of the dictionary with a live runner refuses the purge (BREAKOUT_BUSY); one whose runner died does not', async () => {
  const t = await tempStore();
  try {
    const name = await seedPopstan(t.store);
    const id = (await t.store.dictionaries.find(name))!.id;
    const now = new Date().toISOString();
    const schedule = await t.store.schedules.insert({ dictionaryId: id, enabled: true, cronExpression: '0 * * * *', nextRun: null }, now);
    const run = await t.store.schedules.addRun({
      scheduleId: schedule.id,
      trigger: 'run-now',
      startedAt: now,
      endedAt: null,
      exitCode: null,
      outcome: 'running',
      logFile: null,
      message: null,
      runnerPid: process.pid,
    });
    await assert.rejects(
      purgeDictionary(t.store, name),
      (e: AppError) => e.code === 'BREAKOUT_BUSY' && e.details.schedule_run_id === String(run),
    );
    assert.ok(await t.store.dictionaries.find(name));
    // A pid far above pid_max (4194304 on Linux) belongs to no process: the runner is dead.
    await storeSql(t.store, 'UPDATE schedule_runs SET runner_pid = 99999999 WHERE id = ?', [run]);
    const r = await purgeDictionary(t.store, name);
    assert.equal(r.removed.schedule_runs, 1);
  } finally {
    await t.cleanup();
  }
});
