/**
 * planPrune, the pure half of log retention (docs/logs.md#retention): what goes by age and by
 * count, and what is never planned whatever its age.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planPrune, type PruneInventory } from '../../../src/core/logs/index.js';

const NOW = new Date('2026-06-30T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY).toISOString();
const ms = (d: number) => NOW.getTime() - d * DAY;

function inventory(over: Partial<PruneInventory> = {}): PruneInventory {
  return { jobs: [], logEntries: [], runs: [], scheduleLogFiles: [], files: [], ...over };
}

const job = (id: string, status: string, age: number | null, dictionaries = ['D']) => ({
  id,
  dictionaries,
  status,
  createdAt: daysAgo(age ?? 0),
  finishedAt: age === null ? null : daysAgo(age),
});

test('jobs: old finished jobs go with their files; unfinished and the latest completed/failed per dictionary stay', () => {
  const inv = inventory({
    jobs: [
      job('old-done', 'completed', 90),
      job('last-done', 'completed', 60),
      job('old-failed', 'failed', 80),
      job('last-failed', 'failed', 70),
      job('cancelled', 'cancelled', 50),
      job('running', 'running', null),
      job('pending', 'pending', null),
      job('other-dict', 'completed', 100, ['E']),
      job('recent', 'completed', 1, ['E']),
    ],
    files: [
      { dir: 'breakout', name: 'job-old-done.log', mtimeMs: ms(90), size: 10 },
      { dir: 'breakout', name: 'job-last-done.log', mtimeMs: ms(60), size: 20 },
    ],
  });
  const plan = planPrune(inv, { olderThanDays: 30, keep: 1000, now: NOW });
  assert.deepEqual(plan.jobs.sort(), ['cancelled', 'old-done', 'old-failed', 'other-dict']);
  assert.deepEqual(
    plan.files.map((f) => [f.name, f.kind]),
    [['job-old-done.log', 'jobs']],
  );
});

test('the count keeps the newest of each kind; protected items keep their place', () => {
  const jobs = Array.from({ length: 6 }, (_, i) => job(`j${i}`, 'cancelled', i));
  const plan = planPrune(inventory({ jobs: [...jobs, job('done', 'completed', 10)] }), { olderThanDays: 365, keep: 3, now: NOW });
  // Newest first: j0 j1 j2 kept by count; done is beyond the count but still needed by the metrics.
  assert.deepEqual(plan.jobs.sort(), ['j3', 'j4', 'j5']);
});

test('breakout log entries: by age and count, never those of an unfinished job; a pruned job takes its entries', () => {
  const inv = inventory({
    jobs: [job('run', 'running', null), job('gone', 'cancelled', 40), job('stay', 'cancelled', 1)],
    logEntries: [
      { id: 1, jobId: 'run', createdAt: daysAgo(100) },
      { id: 2, jobId: 'gone', createdAt: daysAgo(40) },
      { id: 3, jobId: 'stay', createdAt: daysAgo(45) },
      { id: 4, jobId: 'stay', createdAt: daysAgo(1) },
      { id: 5, jobId: 'stay', createdAt: daysAgo(2) },
    ],
  });
  const plan = planPrune(inv, { olderThanDays: 30, keep: 1000, now: NOW });
  assert.deepEqual(plan.logEntries, [3]);
  assert.deepEqual(plan.jobLogEntries, [2]);
  const counted = planPrune(inv, { olderThanDays: 365, keep: 1, now: NOW });
  // Newest entry kept (4); 5 and 3 beyond the count; 1 belongs to the running job.
  assert.deepEqual(counted.logEntries.sort(), [3, 5]);
});

test('schedule runs: never running ones, the latest of each schedule, or the run log a schedule shows', () => {
  const run = (id: number, scheduleId: number, outcome: string, age: number, logFile: string | null) => ({
    id,
    scheduleId,
    outcome,
    startedAt: daysAgo(age),
    endedAt: outcome === 'running' ? null : daysAgo(age),
    logFile,
  });
  const inv = inventory({
    runs: [
      run(1, 1, 'succeeded', 90, 'D_a.log'),
      run(2, 1, 'failed', 80, 'D_b.log'),
      run(3, 1, 'succeeded', 70, 'D_c.log'),
      run(4, 2, 'skipped', 65, null),
      run(5, 2, 'running', 60, 'E_a.log'),
      run(6, 3, 'succeeded', 100, 'F_a.log'),
    ],
    scheduleLogFiles: ['D_b.log'],
    files: ['D_a.log', 'D_b.log', 'D_c.log', 'E_a.log', 'F_a.log'].map((name) => ({
      dir: 'breakout' as const,
      name,
      mtimeMs: ms(90),
      size: 5,
    })),
  });
  const plan = planPrune(inv, { olderThanDays: 30, keep: 1000, now: NOW });
  assert.deepEqual(plan.runs.sort(), [1, 4]);
  assert.deepEqual(
    plan.files.map((f) => [f.name, f.kind]),
    [['D_a.log', 'runs']],
  );
});

test('import logs by modification time and count; orphans of logs/breakout by age only', () => {
  const inv = inventory({
    jobs: [job('alive', 'running', null)],
    runs: [{ id: 1, scheduleId: 1, outcome: 'succeeded', startedAt: daysAgo(1), endedAt: daysAgo(1), logFile: 'D_kept.log' }],
    files: [
      { dir: 'import', name: 'D_old.log', mtimeMs: ms(31), size: 100 },
      { dir: 'import', name: 'D_new.log', mtimeMs: ms(1), size: 100 },
      { dir: 'import', name: 'D_newer.log', mtimeMs: ms(0.5), size: 100 },
      { dir: 'breakout', name: 'job-vanished.log', mtimeMs: ms(40), size: 7 },
      { dir: 'breakout', name: 'job-fresh-orphan.log', mtimeMs: ms(2), size: 7 },
      { dir: 'breakout', name: 'job-alive.log', mtimeMs: ms(40), size: 7 },
      { dir: 'breakout', name: 'D_orphan.log', mtimeMs: ms(40), size: 3 },
      { dir: 'breakout', name: 'D_kept.log', mtimeMs: ms(40), size: 3 },
      { dir: 'breakout', name: 'notes.txt', mtimeMs: ms(40), size: 3 },
    ],
  });
  const plan = planPrune(inv, { olderThanDays: 30, keep: 1, now: NOW });
  assert.deepEqual(plan.files.map((f) => `${f.dir}/${f.name}:${f.kind}`).sort(), [
    'breakout/D_orphan.log:runs',
    'breakout/job-vanished.log:jobs',
    'import/D_new.log:import',
    'import/D_old.log:import',
  ]);
});

test('nothing at all is planned for an empty home', () => {
  assert.deepEqual(planPrune(inventory(), { olderThanDays: 0, keep: 0, now: NOW }), {
    jobs: [],
    logEntries: [],
    jobLogEntries: [],
    runs: [],
    files: [],
  });
});
