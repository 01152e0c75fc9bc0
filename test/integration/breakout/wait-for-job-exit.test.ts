/**
 * `sds breakout start --wait` returns once the job's process on this machine has exited, not
 * only once the job row says it ended: the process stores its finished log last
 * (docs/logs.md#job-and-run-log-files), and a script that runs `sds logs show` next must find it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { waitForJob } from '../../../src/core/breakout/jobs/jobs.js';
import { currentNode } from '../../../src/shared/node-id.js';
import { tempStore } from '../../helpers/temp-home.js';

/** A process that lives `ms`, standing for a job process storing its log. */
function liveFor(ms: number): ChildProcess {
  return spawn(process.execPath, ['-e', `setTimeout(() => {}, ${ms})`], { stdio: 'ignore' });
}

/** A completed job whose claim names `host` and `pid`. */
async function endedJob(store: Awaited<ReturnType<typeof tempStore>>['store'], id: string, host: string, pid: number): Promise<void> {
  await store.jobs.create({ id, dictionaries: ['CEN2000'], mode: 'incremental', threads: 1, overwrite: false, origin: 'test' });
  const now = new Date();
  await store.jobs.claim({
    id,
    node: `${host}:${pid}:0`,
    pid,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
  });
  assert.ok(
    await store.jobs.finish(id, 'completed', { result: { dictionaries_processed: [], total_cases: 0, tables_created: [], warnings: 0 } }),
  );
}

test('waitForJob: an ended job whose process runs on this machine is waited for until it exits', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  const child = liveFor(700);
  const exited = once(child, 'exit');
  await endedJob(store, 'here', currentNode().host, child.pid!);
  const s = await waitForJob(store, 'here', undefined, 20);
  assert.equal(s.status, 'completed');
  assert.notEqual(child.exitCode, null, 'returned after the job process exited');
  await exited;
});

// A wait that went wrong would last 30 s: past the test's time limit.
test('waitForJob: the wait for the process is bounded, and a process of another host is not waited for', { timeout: 10_000 }, async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  const child = liveFor(60_000);
  t.after(() => child.kill('SIGKILL'));
  await endedJob(store, 'bounded', currentNode().host, child.pid!);
  assert.equal((await waitForJob(store, 'bounded', undefined, 20, 100)).status, 'completed');
  assert.equal(child.exitCode, null, 'given up on after exitWaitMs');
  await endedJob(store, 'elsewhere', 'another-host', child.pid!);
  assert.equal((await waitForJob(store, 'elsewhere', undefined, 20, 30_000)).status, 'completed');
  assert.equal(child.exitCode, null, 'a pid of another host says nothing here');
});
