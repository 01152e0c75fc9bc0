/**
 * A takeover is written in the breakout log (docs/breakout.md#leases: "logs `job … taken over by
 * node … from node …` in the breakout log"), with the job's progress as a percent. The entry once
 * carried the count of cases done, which the store's CHECK (0 to 100) refused for any job past
 * its hundredth case, and the failure was swallowed: found by test/e2e/cluster/kill-node.test.ts.
 * Runs on the run's store (SDS_TEST_STORE).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reapDeadJobs } from '../../../src/core/breakout/jobs/follow-up.js';
import { nodeIdentity } from '../../../src/shared/node-id.js';
import { tempStore } from '../../helpers/temp-home.js';

const leases = { leaseMs: 30_000, renewMs: 10_000, sweepMs: 15_000, maxTakeovers: 3 };

test('the takeover of a job 2,500 cases in is logged in the breakout log at 62 %', async () => {
  const t = await tempStore();
  try {
    await t.store.jobs.create({ id: 'far-in', dictionaries: ['CEN2000'], mode: 'full', threads: 1, overwrite: false, origin: 'test' });
    const past = new Date(Date.now() - 60_000);
    // Held by a node of another host whose lease ran out a minute ago, 2,500 of 4,000 cases done.
    await t.store.jobs.claim({ id: 'far-in', node: 'gone-host:1:0', pid: 1, now: past.toISOString(), leaseUntil: past.toISOString() });
    await t.store.jobs.saveProgress('far-in', { dictionary: 'CEN2000', processed: 2500, total: 4000 }, 0);

    await reapDeadJobs(t.store, Date.now(), { node: nodeIdentity('live-host', 2002, 0), leases, spawn: false });

    const job = (await t.store.jobs.get('far-in'))!;
    assert.equal(job.takeovers, 1);
    const entries = await t.store.breakoutLog.search({ dictionary: 'CEN2000', limit: 10 });
    const taken = entries.filter((e) => e.message.includes('taken over by node live-host:2002:0 from node gone-host:1:0'));
    assert.equal(taken.length, 1, JSON.stringify(entries));
    assert.equal(taken[0]!.level, 'warn');
    assert.equal(taken[0]!.progress, 62);
  } finally {
    await t.cleanup();
  }
});
