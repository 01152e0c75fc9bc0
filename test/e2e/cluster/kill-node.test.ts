/**
 * Losing a node (docs/production.md#losing-a-node): three `sds serve` nodes on one PostgreSQL
 * store behind nginx; 30 tablets upload and 5 download through nginx while a breakout job runs
 * into a PostgreSQL target behind a slow link, webhooks go to a loopback receiver and a schedule
 * is due on every node's tick; then `kill -9` of the node that started the job and of the job's
 * process, as when a machine is lost. Afterwards every acknowledged case is stored once, the job
 * was finished by another node from its cursor with the target's rows exact, the schedule ran once,
 * every event was delivered (a repeat only with its one webhook-id), and `/readyz` of the live
 * nodes never failed. PostgreSQL on either run: several nodes share a store only there.
 * bench/soak-cluster.ts is the long version.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../helpers/breakout-helpers.js';
import {
  checkCases,
  checkJob,
  checkReadyz,
  checkSchedule,
  checkWebhooks,
  deliveriesSettled,
  type Check,
} from '../../helpers/cluster-checks.js';
import { startTablets } from '../../helpers/cluster-load.js';
import { watchReadyz } from '../../helpers/cluster-readyz.js';
import {
  killNodeAndJob,
  nextRun,
  startJob,
  startKillScenario,
  tickOn,
  waitForHolder,
  waitForJobEnd,
  type KillScenario,
} from '../../helpers/cluster-scenario.js';
import { skipWithout } from '../../helpers/deploy-files.js';

const noNginx = skipWithout('nginx', 'nginx') || skipWithout('openssl', 'openssl');

let s: KillScenario;

before(async () => {
  if (noNginx) return;
  // About 14,600 cases behind a link of 15 ms each way: the job lasts well past the kill.
  s = await startKillScenario({ nodes: 3, jobCopies: 3, targetLatencyMs: 15 });
  phase('cluster up');
});

after(async () => {
  await s?.stop();
});

const t0 = Date.now();
/** Where the time goes, in the test's output: a loaded machine shows which step is slow. */
const phase = (what: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);

const assertChecks = (checks: Check[]) => {
  for (const c of checks) assert.ok(c.ok, `${c.name}: ${c.detail}`);
};

test('kill -9 of the node holding a breakout job loses nothing and does nothing twice', { skip: noNginx, timeout: 240_000 }, async () => {
  const readyz = watchReadyz(s.cluster);
  const jobId = await startJob(s);
  // Every node's tick finds the schedule due at the same moment: one of them runs it; the others
  // find its run claimed, or next_run already moved on (their tick came after the winner's).
  const due = new Date((await nextRun(s)).getTime() + 1000);
  const ticking = tickOn(s, [0, 1, 2], due);
  // Awaited below, after the kill: handled now so a failure waits for that await.
  ticking.catch(() => undefined);
  const tablets = startTablets({
    base: s.cluster.url,
    dict: s.dict,
    uploaders: 30,
    downloaders: 5,
    casesPerUpload: 5,
    minUploads: 3,
    pauseMs: 250,
  });
  try {
    const holder = await waitForHolder(s, jobId);
    phase(`job ${jobId} at ${holder.job.progress?.processed} cases on node ${holder.node}: killing it`);
    const victim = holder.node;
    readyz.down(victim);
    await killNodeAndJob(s, victim, holder.job.pid!);
    const killedAt = Date.now();
    const live = s.cluster.nodes.map((_, i) => i).filter((i) => i !== victim);
    const ticks = await ticking;
    assert.equal(ticks.flatMap((t) => t.runs).length, 1, JSON.stringify(ticks));
    phase('ticked on every node');

    // The tablets go on past the kill (their uploads to the dead node come back 502 and are retried).
    await tablets.minimumDone;
    await until('two seconds of uploads after the kill', () => Date.now() - killedAt > 2000, 10_000, 100);
    const report = await tablets.stop();
    phase(
      `tablets stopped: ${report.acked.length} cases acknowledged, answers ${JSON.stringify(report.uploadStatuses)}, ${report.downloads} downloads`,
    );
    assert.deepEqual(report.uploadFailures, []);
    // At least one complete download while nodes died (a download cut by the kill starts again).
    assert.ok(report.downloads >= 1, `complete downloads during the run: ${report.downloads}; errors ${report.downloadErrors.join('; ')}`);

    const final = await waitForJobEnd(s, jobId);
    phase(`job ${final.status}`);
    // The live nodes tick again at the same moment: the run is not due any more.
    const again = await tickOn(s, live, due);
    assert.equal(again.flatMap((t) => t.runs).length, 0, JSON.stringify(again));
    await until('every webhook delivery settled', () => deliveriesSettled(s), 60_000, 250);
    phase('deliveries settled');

    assertChecks([
      ...(await checkCases(s, report.acked)),
      ...(await checkJob(
        s,
        holder.job,
        final,
        live.map((i) => s.cluster.nodes[i]!.serve.child.pid!),
      )),
      await checkSchedule(s, 1),
      await checkWebhooks(s, report.acked),
      checkReadyz(await readyz.stop()),
    ]);
    for (const i of live) assert.doesNotMatch(s.cluster.nodes[i]!.serve.errors(), /INTERNAL|Unhandled|uncaught/i);
  } catch (err) {
    console.error(`nginx error log (end):\n${s.cluster.nginxErrors().slice(-4000)}`);
    throw err;
  } finally {
    // On a failure too: nothing keeps running after the test.
    await tablets.stop();
    await readyz.stop();
  }
});
