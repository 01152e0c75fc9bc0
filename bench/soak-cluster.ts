// Soak of several nodes (docs/production.md#losing-a-node): the long version of
// test/e2e/cluster/kill-node.test.ts, from the same building blocks (test/helpers/cluster-*.ts).
// N `sds serve` nodes on one PostgreSQL store behind nginx; tablets upload and download through
// nginx for the whole run; round after round, a full breakout job starts, every node ticks the
// scheduler at the schedule's due time, and the node holding the job is killed with `kill -9`
// together with the job's process, then restarted. Each round checks the job was finished by
// another node with its target's rows exact and the schedule ran once; at the end: every
// acknowledged case stored and listed once, every webhook event delivered (a repeat only with its
// one webhook-id), `/readyz` of the live nodes green throughout. Exits 1 when a check failed.
// Knobs (flag or environment): see `usage` and bench/README.md ("Soak of several nodes").
// Runs the compiled build (bin/sds): `npm run soak:cluster` builds first.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { until } from '../test/helpers/breakout-helpers.js';
import {
  checkCases,
  checkJob,
  checkReadyz,
  checkSchedule,
  checkWebhooks,
  deliveriesSettled,
  type Check,
} from '../test/helpers/cluster-checks.js';
import { startTablets } from '../test/helpers/cluster-load.js';
import { watchReadyz } from '../test/helpers/cluster-readyz.js';
import {
  killNodeAndJob,
  nextRun,
  startJob,
  startKillScenario,
  tickOn,
  waitForHolder,
  waitForJobEnd,
} from '../test/helpers/cluster-scenario.js';

const usage = `npm run soak:cluster -- [--seconds N] [--nodes N] [--tablets N] [--downloaders N] [--chunk N] [--pause MS] [--round S]
                            [--copies N] [--latency MS]
  --seconds      how long to start new rounds, after the setup (SOAK_SECONDS, default 300)
  --nodes        sds serve nodes behind nginx (SOAK_NODES, default 3)
  --tablets      tablets uploading at once (SOAK_TABLETS, default 60)
  --downloaders  tablets downloading at once (SOAK_DOWNLOADERS, default 10)
  --chunk        cases per upload (SOAK_CHUNK, default 2)
  --pause        a tablet's pause between two requests, ms (SOAK_PAUSE, default 1000)
  --round        at least this many seconds per round: job, ticks, kill, restart (SOAK_ROUND, default 30)
  --copies       copies of Popstan's 4,873 cases in the job's dictionary (SOAK_COPIES, default 5)
  --latency      one-way delay of the link to the job's target, ms (SOAK_LATENCY, default 15)`;

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string' },
    nodes: { type: 'string' },
    tablets: { type: 'string' },
    downloaders: { type: 'string' },
    chunk: { type: 'string' },
    pause: { type: 'string' },
    round: { type: 'string' },
    copies: { type: 'string' },
    latency: { type: 'string' },
    help: { type: 'boolean' },
  },
});
if (flags.help) {
  console.log(usage);
  process.exit(0);
}

function knob(flag: string | undefined, env: string, def: number, min: number): number {
  const raw = flag ?? process.env[env];
  const n = raw === undefined ? def : Number(raw);
  if (!Number.isInteger(n) || n < min) {
    console.error(`soak:cluster: ${env} must be a whole number ≥ ${min}, not ${raw}\n${usage}`);
    process.exit(2);
  }
  return n;
}

const SECONDS = knob(flags.seconds, 'SOAK_SECONDS', 300, 1);
// Two at least: one to lose, one to take its job over.
const NODES = knob(flags.nodes, 'SOAK_NODES', 3, 2);
const TABLETS = knob(flags.tablets, 'SOAK_TABLETS', 60, 1);
const DOWNLOADERS = knob(flags.downloaders, 'SOAK_DOWNLOADERS', 10, 0);
const CHUNK = knob(flags.chunk, 'SOAK_CHUNK', 2, 1);
const PAUSE = knob(flags.pause, 'SOAK_PAUSE', 1000, 0);
const ROUND = knob(flags.round, 'SOAK_ROUND', 30, 1);
const COPIES = knob(flags.copies, 'SOAK_COPIES', 5, 1);
const LATENCY = knob(flags.latency, 'SOAK_LATENCY', 15, 0);

if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first');

const t0 = Date.now();
const say = (line: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(7)} s  ${line}`);

say(`starting ${NODES} nodes, nginx, the store and a target of ${COPIES} × 4,873 cases behind ${LATENCY} ms`);
const s = await startKillScenario({ nodes: NODES, jobCopies: COPIES, targetLatencyMs: LATENCY });
const checks: Check[] = [];
let rounds = 0;
// --seconds counts from here: the setup (the import of the job's cases above all) is not the soak.
const runStart = Date.now();
try {
  const readyz = watchReadyz(s.cluster);
  const tablets = startTablets({
    base: s.cluster.url,
    dict: s.dict,
    uploaders: TABLETS,
    downloaders: DOWNLOADERS,
    casesPerUpload: CHUNK,
    minUploads: 1,
    pauseMs: PAUSE,
  });
  try {
    while (Date.now() - runStart < SECONDS * 1000) {
      const roundStart = Date.now();
      const jobId = await startJob(s);
      const due = new Date((await nextRun(s)).getTime() + 1000);
      const ticking = tickOn(
        s,
        s.cluster.nodes.map((_, i) => i),
        due,
      );
      ticking.catch(() => undefined);
      const holder = await waitForHolder(s, jobId);
      const victim = holder.node;
      say(`round ${rounds + 1}: job ${jobId} at ${holder.job.progress?.processed ?? 0} cases on node ${victim}: kill -9`);
      readyz.down(victim);
      await killNodeAndJob(s, victim, holder.job.pid!);
      const live = s.cluster.nodes.map((_, i) => i).filter((i) => i !== victim);
      const ticks = await ticking;
      const ran = ticks.flatMap((t) => t.runs).length;
      const final = await waitForJobEnd(s, jobId);
      const round = await checkJob(
        s,
        holder.job,
        final,
        live.map((i) => s.cluster.nodes[i]!.serve.child.pid!),
      );
      round.push({ name: 'the due run went to one tick', ok: ran === 1, detail: `${ran} of ${ticks.length} ticks ran it` });
      for (const c of round) say(`round ${rounds + 1}: ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`);
      checks.push(...round.filter((c) => !c.ok).map((c) => ({ ...c, name: `round ${rounds + 1}: ${c.name}` })));
      rounds++;
      await s.cluster.restartNode(victim);
      readyz.up(victim);
      say(`round ${rounds}: node ${victim} restarted`);
      const rest = ROUND * 1000 - (Date.now() - roundStart);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  } finally {
    const report = await tablets.stop();
    say(
      `tablets stopped: ${report.acked.length} cases acknowledged, answers ${JSON.stringify(report.uploadStatuses)}, ${report.downloads} downloads`,
    );
    if (report.uploadFailures.length)
      checks.push({ name: 'no upload lost', ok: false, detail: report.uploadFailures.slice(0, 5).join('; ') });
    // Every event of the run, the backlog of a loaded machine included (bench/README.md).
    await until('every webhook delivery settled', () => deliveriesSettled(s), 600_000, 500);
    checks.push(
      ...(await checkCases(s, report.acked)),
      await checkSchedule(s, rounds),
      await checkWebhooks(s, report.acked),
      checkReadyz(await readyz.stop()),
    );
  }
} catch (err) {
  checks.push({ name: 'the soak ran to its end', ok: false, detail: String((err as Error).stack ?? err) });
  say(`nginx error log (end):\n${s.cluster.nginxErrors().slice(-3000)}`);
} finally {
  await s.stop();
}

console.log(`\n${rounds} rounds in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
const failed = checks.filter((c) => !c.ok);
console.log(JSON.stringify({ rounds, nodes: NODES, tablets: TABLETS, downloaders: DOWNLOADERS, failed: failed.map((c) => c.name) }));
process.exit(failed.length === 0 && rounds > 0 ? 0 : 1);
