/**
 * The world of "losing a node" (docs/production.md#losing-a-node), shared by
 * test/e2e/cluster/kill-node.test.ts and bench/soak-cluster.ts: a cluster of `sds serve` nodes
 * on one PostgreSQL store with short leases; the tablets' dictionary (Popstan, CEN2000) with a
 * breakout target and a schedule; a second dictionary (KILLJOB: Popstan under another name, many
 * cases) whose breakout job runs into a PostgreSQL target behind a slow link, so it is still
 * running when its node is killed; a webhook to a loopback receiver. Then the moves: start the
 * job, find the node holding it, kill that node and the job's process as a machine loss would,
 * tick the scheduler on nodes.
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadDictionary } from '../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../src/core/cases/import/import-cases.js';
import { setTarget } from '../../src/core/breakout/targets/targets.js';
import { processAlive } from '../../src/core/breakout/jobs/job-process.js';
import { addWebhook } from '../../src/core/webhooks/webhooks.js';
import { addSchedule } from '../../src/core/scheduler/schedules.js';
import type { JobRow } from '../../src/store/jobs-repo.js';
import { datLines, groupPopstan, until, withProvince, writeDat } from './breakout-helpers.js';
import { startCluster, type Cluster } from './cluster.js';
import { loginAt, seedClusterStore } from './cluster-client.js';
import { runCliAsync } from './run-cli.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { storeSql, fixture } from './temp-home.js';
import { createPostgresDatabase, type TestDatabase } from './test-databases.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** The job's dictionary: Popstan renamed, its tables `killjob_*` (the label is the prefix). */
export const JOB_DICT = 'KILLJOB';

/**
 * Leases short enough for a takeover within seconds (docs/breakout.md#leases,
 * docs/webhooks.md#settings): a dead node's job is noticed by the next sweep (0.5 s), a delivery
 * it held is sent again after 8 s (the lease must exceed connect and response timeouts), and a
 * delivery that timed out on a loaded machine is retried after seconds, not minutes.
 */
const SHORT_LEASES: NodeJS.ProcessEnv = {
  SDS_JOB_LEASE_MS: '3000',
  SDS_JOB_LEASE_RENEW_MS: '1000',
  SDS_JOB_SWEEP_MS: '500',
  SDS_WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
  SDS_WEBHOOK_RESPONSE_TIMEOUT_MS: '5000',
  SDS_WEBHOOK_LEASE_MS: '8000',
  SDS_WEBHOOK_RETRY_DELAYS_MS: '1000,2000,4000',
  SDS_WEBHOOK_POLL_MS: '250',
};

export interface KillScenarioOptions {
  nodes: number;
  /** Copies of Popstan's 4,873 cases in the job's dictionary (each under its own province). */
  jobCopies: number;
  /** One-way delay of the link to the job's target, in ms: makes the job last. */
  targetLatencyMs: number;
}

export interface KillScenario {
  cluster: Cluster;
  /** The tablets' dictionary. */
  dict: string;
  /** Cases and person records in the job's dictionary: what its target must hold. */
  jobCases: number;
  jobPersons: number;
  target: TestDatabase;
  receiver: Receiver;
  scheduleId: number;
  /** The environment of the nodes, for commands run on a node (`sds scheduler-run`). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Sets the world up (the nodes started last, on a seeded store); `stop()` undoes it all. */
export async function startKillScenario(o: KillScenarioOptions): Promise<KillScenario> {
  const undo: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const u of undo.reverse()) await u();
  };
  try {
    const target = await createPostgresDatabase();
    undo.push(() => target.drop());
    const direct = new URL(target.config.url!);
    const slowLink: TcpProxy = await startTcpProxy(Number(direct.port || 5432), direct.hostname, { latencyMs: o.targetLatencyMs });
    undo.push(() => slowLink.close());
    const slow = new URL(direct);
    slow.hostname = '127.0.0.1';
    slow.port = String(slowLink.port);

    const receiver = await startReceiver();
    undo.push(() => receiver.close());

    const dir = mkdtempSync(join(tmpdir(), 'sds-killnode-'));
    undo.push(() => rmSync(dir, { recursive: true, force: true }));
    const base = datLines();
    const lines = Array.from({ length: o.jobCopies }, (_, k) => withProvince(base, 20 + k)).flat();
    const dat = writeDat(dir, 'killjob.dat', lines);
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8')) as { name: string };
    dcf.name = JOB_DICT;

    let dict = '';
    let scheduleId = 0;
    const env = { ...SHORT_LEASES };
    const cluster = await startCluster({
      nodes: o.nodes,
      env,
      seed: async (store) => {
        dict = await seedClusterStore(store);
        await uploadDictionary(store, { source: Buffer.from(JSON.stringify(dcf)), label: 'killjob' });
        const r = await importCases(store, JOB_DICT, [dat]);
        if (r.total.failed !== 0) throw new Error(`import failed: ${JSON.stringify(r.files.map((f) => f.errors))}`);
        await setTarget(store, JOB_DICT, { type: 'postgresql', url: slow.toString() });
        await setTarget(store, dict, { type: 'postgresql', url: direct.toString() });
        // After the import: the webhook hears the tablets' uploads only.
        await addWebhook(store, { name: 'receiver', url: receiver.url, events: ['case_uploaded'] });
        const schedule = await addSchedule(
          store,
          { dictionary: dict, cron_expression: '* * * * *', enabled: true },
          { zone: 'UTC', now: () => new Date() },
        );
        scheduleId = schedule.id;
      },
    });
    undo.push(() => cluster.stop());
    return {
      cluster,
      dict,
      jobCases: groupPopstan(lines).length,
      jobPersons: lines.filter((l) => l[0] === '1').length,
      target,
      receiver,
      scheduleId,
      env: { ...env, SDS_STORE_URL: cluster.storeUrl },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts a full breakout of the job's dictionary through the balancer (tables rebuilt); its id. */
export async function startJob(s: KillScenario): Promise<string> {
  const token = await loginAt(s.cluster.url, 'admin');
  const r = await fetch(`${s.cluster.url}/api/breakout/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ dictionaries: [JOB_DICT], overwrite: true }),
  });
  const body = (await r.json()) as { job_id?: string };
  if (r.status !== 202 || !body.job_id) throw new Error(`breakout start: ${r.status} ${JSON.stringify(body)}`);
  return body.job_id;
}

const jobRow = (s: KillScenario, id: string): Promise<JobRow> => s.cluster.withStore(async (st) => (await st.jobs.get(id))!);

/** The parent process id of `pid` (Linux /proc), or undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The job's process and the node that started it, once the job runs and has saved its cursor. */
export interface JobHolder {
  job: JobRow;
  /** Index in cluster.nodes of the node whose child the job's process is. */
  node: number;
}

/** Waits until the job runs in a process of a node with its cursor saved (so a takeover has something to resume from). */
export async function waitForHolder(s: KillScenario, jobId: string, timeoutMs = 60_000): Promise<JobHolder> {
  return until(
    `job ${jobId} running on a node with its cursor saved`,
    async () => {
      const job = await jobRow(s, jobId);
      if (job.status !== 'pending' && job.status !== 'running')
        throw new Error(`job ${jobId} ended before it could be killed: ${job.status}`);
      if (job.status !== 'running' || job.pid === null || (job.progress?.processed ?? 0) === 0) return undefined;
      const state = await s.cluster.withStore(async (st) => st.breakoutState.get((await st.dictionaries.find(JOB_DICT))!.id));
      // The cursor of this job's load (a rebuild first puts it back at the start).
      if (state?.loadingJobId !== jobId || state.cursor.revision === 0) return undefined;
      const parent = parentOf(job.pid);
      const node = s.cluster.nodes.findIndex((n) => n.serve.child.pid === parent && n.serve.exit() === null);
      return node < 0 ? undefined : { job, node };
    },
    timeoutMs,
    100,
  );
}

/**
 * `kill -9` of node `i` and of the job process it started, at once, as when the machine is lost;
 * resolves once both are gone.
 */
export async function killNodeAndJob(s: KillScenario, i: number, jobPid: number): Promise<void> {
  const killed = s.cluster.nodes[i]!.serve.kill9();
  process.kill(jobPid, 'SIGKILL');
  await killed;
  await until(`job process ${jobPid} gone`, () => !processAlive(jobPid), 10_000, 20);
}

/** Waits for the job to end (completed, failed or cancelled). */
export function waitForJobEnd(s: KillScenario, jobId: string, timeoutMs = 120_000): Promise<JobRow> {
  return until(
    `job ${jobId} to end`,
    async () => {
      const job = await jobRow(s, jobId);
      return job.status === 'pending' || job.status === 'running' ? undefined : job;
    },
    timeoutMs,
    100,
  );
}

/** One tick's JSON report (docs/scheduler.md, `scheduler-run --json`). */
export interface TickReport {
  node: string;
  runs: { schedule_id: number; outcome: string }[];
  claimed_elsewhere: { schedule_id: number; node: string }[];
}

/** `sds scheduler-run` on each of `nodes` at once, its clock at `now` (SDS_NOW); their reports. */
export async function tickOn(s: KillScenario, nodes: number[], now: Date): Promise<TickReport[]> {
  const runs = nodes.map((i) =>
    runCliAsync(s.cluster.nodes[i]!.home, ['scheduler-run', '--json'], { env: { ...s.env, SDS_NOW: now.toISOString() } }),
  );
  return (await Promise.all(runs)).map((r) => {
    if (r.code !== 0) throw new Error(`scheduler-run exited ${r.code}: ${r.stdout}\n${r.stderr}`);
    return r.json<TickReport>();
  });
}

/** The schedule's `next_run`: the moment at which it is due. */
export async function nextRun(s: KillScenario): Promise<Date> {
  const rows = await s.cluster.withStore((st) => storeSql(st, 'SELECT next_run FROM schedules WHERE id = ?', [s.scheduleId]));
  return new Date(String(rows[0]!.next_run));
}
