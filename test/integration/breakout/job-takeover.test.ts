/**
 * A breakout job taken over from a node that stopped (docs/breakout.md#leases): two stores over
 * one home stand for two nodes; node A claims the job and stops renewing its lease after its
 * first page (its clock stands still, as a node that hangs or died); node B's sweep leaves the
 * live lease alone, takes the job once the lease is over (by B's injected clock), and finishes it
 * from A's cursor. The target then holds exactly the rows of a clean breakout. Runs on the
 * run's store (SDS_TEST_STORE), with a SQLite target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { createJob, runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { runJob } from '../../../src/core/breakout/jobs/run-job.js';
import { reapDeadJobs } from '../../../src/core/breakout/jobs/follow-up.js';
import { openStore } from '../../../src/store/open-store.js';
import { nodeIdentity } from '../../../src/shared/node-id.js';
import { tempStore } from '../../helpers/temp-home.js';
import { seedPopstan } from '../../helpers/http-server.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const leases = { leaseMs: 30_000, renewMs: 10_000, sweepMs: 15_000, maxTakeovers: 3 };
const nodeA = nodeIdentity('host-a', 1001, T0);
const nodeB = nodeIdentity('host-b', 2002, T0);

/** Every row of every table of a SQLite target but the jobs table, sorted: what a breakout wrote. */
function targetRows(file: string): Record<string, string[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
      .map((t) => t.name)
      .filter((n) => !n.endsWith('_cspro_jobs'));
    return Object.fromEntries(
      tables.map((n) => [
        n,
        (db.prepare(`SELECT * FROM "${n}"`).all() as Record<string, unknown>[])
          .map((r) => JSON.stringify({ ...r, breakout_time: undefined }))
          .sort(),
      ]),
    );
  } finally {
    db.close();
  }
}

test('a job whose node stops renewing is taken over by another node and finished from its cursor, rows exact', async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  const t = await tempStore();
  const storeB = await openStore(t.home);
  try {
    const dict = await seedPopstan(t.store);
    const dictRow = (await t.store.dictionaries.find(dict))!;
    const active = await t.store.cases.countActive(dictRow.id);
    const target = join(t.home.root, 'target.sqlite');
    await setTarget(t.store, dict, { type: 'sqlite', file: target });
    const job = await createJob(t.store, { dictionaries: [dict], mode: 'full', threads: 1, overwrite: false, origin: 'test' });

    // Node A: its clock stands at T0, so it never renews; after its first page is committed and
    // its progress saved, node B sweeps, first while the lease holds, then once it is over.
    const saveProgress = t.store.jobs.saveProgress.bind(t.store.jobs);
    const sweeps: string[] = [];
    t.store.jobs.saveProgress = async (id, progress, warnings) => {
      await saveProgress(id, progress, warnings);
      if (progress.processed === 0 || sweeps.length > 0) return;
      await reapDeadJobs(storeB, T0 + leases.leaseMs - 1, { node: nodeB, leases, spawn: false });
      sweeps.push(`live: ${(await storeB.jobs.get(id))!.leaseNode}`);
      await reapDeadJobs(storeB, T0 + leases.leaseMs + 1, { node: nodeB, leases, spawn: false });
      sweeps.push(`over: ${(await storeB.jobs.get(id))!.leaseNode}`);
    };
    const byA = await runJob(t.store, job.id, {
      node: nodeA,
      leases,
      now: () => new Date(T0),
      pageSize: 500,
      cursorSaving: { everyPages: 1 },
    });
    assert.deepEqual(sweeps, [`live: ${nodeA.id}`, `over: ${nodeB.id}`], 'a live lease is not stolen; an expired one is');
    // A stopped at its next page without ending the job: it is B's now.
    assert.equal(byA.status, 'running');
    assert.equal(byA.leaseNode, nodeB.id);
    assert.equal(byA.takeovers, 1);
    const state = (await storeB.breakoutState.get(dictRow.id))!;
    assert.equal(state.loadingJobId, job.id);
    const covered = (await storeB.jobs.get(job.id))!.progress!.processed;
    assert.ok(covered >= 500 && covered < active, `A loaded part of the cases: ${covered} of ${active}`);

    // Node B runs it (the sweep would have spawned a process): from the cursor, not from the start.
    const later = T0 + leases.leaseMs + 2;
    const byB = await runJob(storeB, job.id, { node: nodeB, leases, now: () => new Date(later), handoffFrom: nodeB.id, pageSize: 500 });
    assert.equal(byB.status, 'completed', JSON.stringify(byB.error));
    assert.equal(byB.leaseNode, nodeB.id);
    assert.equal(byB.takeovers, 1);
    assert.deepEqual(byB.dictionariesDone, [dict]);
    assert.ok(byB.result!.total_cases <= active - covered, `B applied only what A had not: ${byB.result!.total_cases}`);

    // The target holds exactly what a clean breakout writes: compared with one into another file.
    const taken = targetRows(target);
    const clean = join(t.home.root, 'clean.sqlite');
    await setTarget(t.store, dict, { type: 'sqlite', file: clean });
    assert.equal((await runBreakoutNow(t.store, { dictionary: dict, overwrite: true })).status, 'completed');
    const expected = targetRows(clean);
    assert.deepEqual(Object.keys(taken), Object.keys(expected));
    const cases = Object.keys(taken).find((n) => n.endsWith('_cases'))!;
    assert.equal(taken[cases]!.length, active);
    for (const name of Object.keys(expected)) assert.deepEqual(taken[name], expected[name], `table ${name}`);
  } finally {
    await storeB.close();
    await t.cleanup();
  }
});
