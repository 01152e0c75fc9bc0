/**
 * `sds scheduler-run` and `sds schedule` as cron and an operator run them: the compiled CLI as a
 * subprocess, real breakout children, real PostgreSQL and SQLite targets. SDS_NOW (the
 * scheduler's documented testing aid) makes a schedule due without waiting for the clock.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import type { Store } from '../../../src/store/open-store.js';
import { datLines, groupPopstan, openQuery, popstanStore, POPSTAN, setTargetConfig, writeDat } from '../../helpers/breakout-helpers.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { runCli, runCliAsync, show, type CliResult } from '../../helpers/run-cli.js';
import { fixture } from '../../helpers/temp-home.js';
import { silentServer, unusedPort } from '../../integration/dialects/fake-servers.js';

const CASES = 40;
/** A moment long after any next_run computed from the real clock: every enabled schedule is due. */
const LATER = '2099-01-01T00:00:00Z';
const later = { SDS_NOW: LATER };

let pg: TestDatabase;
let datFile: string;
const cleanups: (() => void | Promise<void>)[] = [];

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  pg = await createPostgresDatabase();
  const lines = groupPopstan(datLines())
    .slice(0, CASES)
    .flatMap((c) => c.lines);
  const dir = mkdtempSync(join(tmpdir(), 'sds-sched-dat-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  datFile = writeDat(dir, 'popstan-40.dat', lines);
});

after(async () => {
  for (const c of cleanups) await c();
  await pg.drop();
});

/** A home with Popstan (CASES cases) and the given target, the store open in this process. */
async function home(target?: Parameters<typeof setTargetConfig>[2] | 'sqlite'): Promise<{ store: Store; root: string }> {
  const t = await popstanStore([datFile], target === 'sqlite' ? undefined : target);
  cleanups.push(t.cleanup);
  if (target === 'sqlite') await setTargetConfig(t.store, POPSTAN, { type: 'sqlite', file: join(t.home.targets, 'popstan.sqlite') });
  return { store: t.store, root: t.home.root };
}

function ok(r: CliResult, code = 0): CliResult {
  assert.equal(r.code, code, show(r));
  return r;
}

/** A run's log as `sds logs show` prints it: from the store's file store on PostgreSQL, the home's logs/breakout/ on SQLite. */
function runLog(root: string, file: string): string {
  return ok(runCli(root, ['logs', 'show', file])).stdout;
}

async function schedule(store: Store, dict = POPSTAN) {
  return (await store.schedules.forDictionary((await store.dictionaries.find(dict))!.id))!;
}

/** The sections of a run log file, by their headers. */
function logSections(text: string): {
  command: string;
  started: string;
  exit: string;
  interrupted?: string;
  stdout: string;
  stderr: string;
} {
  const head = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1];
  const out = text.indexOf('--- STDOUT ---\n');
  const err = text.indexOf('--- STDERR ---\n');
  assert.ok(out > 0 && err > out, `sections out of order:\n${text}`);
  return {
    command: head('Command')!,
    started: head('Started')!,
    exit: head('Exit code')!,
    interrupted: head('Interrupted'),
    stdout: text.slice(out + 15, err),
    stderr: text.slice(err + 15),
  };
}

test('a due schedule runs its breakout into PostgreSQL, writes its log file and records the run; a schedule not due does not run', async () => {
  const { store, root } = await home(pg.config);
  ok(runCli(root, ['schedule', 'add', POPSTAN, '--cron', '0 2 * * *', '--enable']));
  const added = await schedule(store);
  assert.ok(added.nextRun && added.nextRun.endsWith('T02:00:00.000Z'), added.nextRun ?? 'no next_run');

  // Not due: the clock stands a minute before next_run.
  const before = new Date(Date.parse(added.nextRun!) - 60_000).toISOString();
  const idle = ok(runCli(root, ['scheduler-run'], { env: { SDS_NOW: before } }));
  assert.match(idle.stdout, /no schedules due/);
  assert.equal(await store.schedules.countRuns(added.id), 0);
  assert.deepEqual(
    readdirSync(join(root, 'logs', 'breakout')).filter((f) => f.startsWith(POPSTAN)),
    [],
  );

  // Due: the clock stands on next_run.
  const r = ok(runCli(root, ['--json', 'service:scheduler-run', '--env=prod'], { env: { SDS_NOW: added.nextRun! } }));
  const reply = r.json();
  assert.match(reply.node, /^[^:]+:\d+:[0-9a-z]+$/, 'the node id of the tick');
  assert.deepEqual(reply.claimed_elsewhere, []);
  assert.equal(reply.runs.length, 1);
  assert.equal(reply.runs[0].outcome, 'succeeded');

  const s = await schedule(store);
  assert.equal(s.lastExitCode, 0);
  assert.equal(s.lastRun, added.nextRun);
  assert.equal(s.nextRun, new Date(Date.parse(added.nextRun!) + 86_400_000).toISOString(), 'next_run is the next occurrence after now');
  assert.equal(s.lastLogFile, `${POPSTAN}_${added.nextRun!.slice(0, 10)}_02-00-00.log`);

  const log = logSections(runLog(root, s.lastLogFile!));
  assert.match(log.command, /process-cases-by-dict CEN2000$/);
  assert.equal(log.started, added.nextRun);
  assert.equal(log.exit, '0');
  assert.equal(JSON.parse(log.stdout).status, 'completed');

  const q = await openQuery(pg.config);
  try {
    assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), CASES);
  } finally {
    await q.close();
  }
  const runs = ok(runCli(root, ['--json', 'schedule', 'runs', POPSTAN])).json();
  assert.equal(runs.total, 1);
  assert.deepEqual(
    { trigger: runs.runs[0].trigger, outcome: runs.runs[0].outcome, exit_code: runs.runs[0].exit_code, log_file: runs.runs[0].log_file },
    { trigger: 'scheduled', outcome: 'succeeded', exit_code: 0, log_file: s.lastLogFile },
  );

  // Run again at the same moment: next_run has moved on, so nothing is due.
  assert.deepEqual(ok(runCli(root, ['--json', 'scheduler-run'], { env: { SDS_NOW: added.nextRun! } })).json().runs, []);
  assert.equal(await store.schedules.countRuns(added.id), 1);
});

test('a breakout still running past the time limit is stopped, logged as interrupted and recorded as a failure', async () => {
  const hang = await silentServer();
  try {
    const { store, root } = await home({ type: 'postgresql', url: `postgresql://postgres@127.0.0.1:${hang.port}/hangs` });
    ok(runCli(root, ['schedule', 'add', POPSTAN, '--cron', '*/5 * * * *', '--enable']));
    const r = runCli(root, ['scheduler-run'], { env: { ...later, SDS_SCHEDULER_TIMEOUT: '2', SDS_SCHEDULER_KILL_GRACE: '1' } });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stdout, /CEN2000: interrupted \(exit code 124\)/);
    const s = await schedule(store);
    assert.equal(s.lastExitCode, 124);
    const [run] = await store.schedules.runs(s.id, 5);
    assert.equal(run!.outcome, 'interrupted');
    assert.match(run!.message!, /longer than the limit of 2 s/);
    const log = logSections(runLog(root, s.lastLogFile!));
    assert.equal(log.exit, '124');
    assert.match(log.interrupted!, /longer than the limit of 2 s and was stopped/);
  } finally {
    await hang.close();
  }
});

test('a run past its limit against a target that never answers stops on SIGTERM alone: interrupted 124, job cancelled, not DB_CONNECTION_ERROR', async () => {
  const hang = await silentServer();
  try {
    const { store, root } = await home({ type: 'postgresql', url: `postgresql://postgres@127.0.0.1:${hang.port}/hangs` });
    ok(runCli(root, ['schedule', 'add', POPSTAN, '--cron', '*/5 * * * *', '--enable']));
    // The grace before SIGKILL (60 s) and the driver's connect timeout (15 s) are both longer than
    // the hang guard below: only a child that honours SIGTERM while connecting ends in time.
    const t0 = Date.now();
    const r = runCli(root, ['--json', 'scheduler-run', '--timeout', '2'], { env: { ...later, SDS_SCHEDULER_KILL_GRACE: '60' } });
    const took = Date.now() - t0;
    assert.equal(r.code, 1, show(r));
    const [out] = r.json().runs;
    assert.deepEqual([out.outcome, out.exit_code], ['interrupted', 124], JSON.stringify(out));
    assert.match(out.message, /longer than the limit of 2 s and was stopped \(SIGTERM\)$/);
    assert.ok(took < 12_000, `scheduler-run took ${took} ms`);
    const s = await schedule(store);
    assert.equal(s.lastExitCode, 124);
    const [job] = (await store.jobs.list({ limit: 5 })).jobs;
    assert.equal(job!.status, 'cancelled', JSON.stringify(job));
    const log = logSections(runLog(root, s.lastLogFile!));
    assert.equal(log.exit, '124');
    assert.doesNotMatch(log.stdout, /DB_CONNECTION_ERROR/);
  } finally {
    await hang.close();
  }
});

test('a failing target gives exit 1 and a recorded failure, and does not stop the other due schedules', async () => {
  const port = await unusedPort();
  const { store, root } = await home({ type: 'postgresql', url: `postgresql://postgres@127.0.0.1:${port}/nothing` });
  const simple = (await uploadDictionary(store, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' })).name;
  await setTarget(store, simple, { type: 'sqlite', file: join(root, 'targets', 'simple.sqlite') });
  ok(runCli(root, ['schedule', 'add', POPSTAN, '--enable']));
  ok(runCli(root, ['schedule', 'add', simple, '--enable', '--cron', '15 3 * * *']));

  const r = runCli(root, ['--json', 'scheduler-run'], { env: later });
  assert.equal(r.code, 1, show(r));
  const byDict = Object.fromEntries(r.json().runs.map((x: { dictionary: string }) => [x.dictionary, x]));
  assert.equal(byDict[POPSTAN].outcome, 'failed');
  assert.equal(byDict[POPSTAN].exit_code, 5, 'the breakout exits 5 when the target fails');
  assert.match(byDict[POPSTAN].message, /^DB_CONNECTION_ERROR: /, "the spec's breakout code (DB-001 is in the job's details)");
  assert.equal(byDict[simple].outcome, 'succeeded');
  assert.equal((await schedule(store)).lastExitCode, 5);
  assert.equal((await schedule(store, simple)).lastExitCode, 0);
  const log = logSections(runLog(root, (await schedule(store)).lastLogFile!));
  assert.equal(log.exit, '5');
  assert.match(log.stdout, /DB-001/);
});

test('ten concurrent scheduler-run processes give one breakout per due schedule', async () => {
  const { store, root } = await home('sqlite');
  ok(runCli(root, ['schedule', 'add', POPSTAN, '--enable']));
  const results = await Promise.all(Array.from({ length: 10 }, () => runCliAsync(root, ['--json', 'scheduler-run'], { env: later })));
  for (const r of results) ok(r);
  const ran = results.flatMap((r) => r.json().runs);
  assert.equal(ran.length, 1, JSON.stringify(results.map((r) => r.json())));
  assert.equal(ran[0].outcome, 'succeeded');
  assert.equal(await store.schedules.countRuns((await schedule(store)).id), 1);
  assert.equal((await store.jobs.list({ limit: 100 })).total, 1, 'one breakout job');
});

test('two ticks at once: one runs the due schedule, the other names the node that claimed it; no lock file', async () => {
  const { store, root } = await home('sqlite');
  ok(runCli(root, ['schedule', 'add', POPSTAN, '--enable']));
  const due = (await schedule(store)).nextRun!;
  const ticks = (await Promise.all([0, 1].map(() => runCliAsync(root, ['--json', 'scheduler-run'], { env: later })))).map((r) =>
    ok(r).json(),
  );
  const winner = ticks.find((t) => t.runs.length === 1);
  const loser = ticks.find((t) => t !== winner);
  assert.ok(winner && loser, JSON.stringify(ticks));
  assert.equal(winner.runs[0].outcome, 'succeeded');
  assert.deepEqual(loser.runs, []);
  // The other tick saw the schedule due and lost the claim, or read it after the winner moved next_run on.
  if (loser.due === 1) {
    assert.deepEqual(loser.claimed_elsewhere, [
      { schedule_id: winner.runs[0].schedule_id, dictionary: POPSTAN, due_at: due, node: winner.node },
    ]);
  } else assert.deepEqual([loser.due, loser.claimed_elsewhere], [0, []]);
  assert.equal(await store.schedules.countRuns((await schedule(store)).id), 1);
  assert.equal(existsSync(join(root, 'locks', 'scheduler-run.lock')), false, 'ticks take no file lock');
});

test('a dictionary whose breakout is already running is skipped with the reason, and its next_run moves on', async () => {
  const { store, root } = await home('sqlite');
  ok(runCli(root, ['schedule', 'add', POPSTAN, '--enable', '--cron', '0 * * * *']));
  // A job started by hand, its process alive (this test process).
  const job = await store.jobs.create({
    id: randomUUID(),
    dictionaries: [POPSTAN],
    mode: 'incremental',
    threads: 1,
    overwrite: false,
    origin: 'cli',
  });
  await store.jobs.markRunning(job.id, process.pid);
  const r = ok(runCli(root, ['--json', 'scheduler-run'], { env: later }));
  const [run] = r.json().runs;
  assert.equal(run.outcome, 'skipped');
  assert.match(run.message, new RegExp(`breakout job ${job.id} of CEN2000 \\(cli\\) is still running`));
  assert.equal((await schedule(store)).nextRun, '2099-01-01T01:00:00.000Z');
  assert.equal((await schedule(store)).lastExitCode, null);
  await store.jobs.finish(job.id, 'cancelled');
});

test('schedule run-now runs at once through the same code, leaves next_run alone, and old runs are pruned with their logs', async () => {
  const { store, root } = await home('sqlite');
  ok(runCli(root, ['schedule', 'add', POPSTAN]));
  const env = { SDS_SCHEDULER_KEEP_RUNS: '2' };
  const logs: string[] = [];
  for (const at of ['2030-01-01T00:00:00Z', '2030-01-01T00:01:00Z', '2030-01-01T00:02:00Z']) {
    const r = ok(runCli(root, ['--json', 'schedule', 'run-now', POPSTAN], { env: { ...env, SDS_NOW: at } })).json();
    assert.equal(r.trigger, 'run-now');
    assert.equal(r.outcome, 'succeeded');
    logs.push(r.log_file);
  }
  const s = await schedule(store);
  assert.equal(s.enabled, false);
  assert.equal(s.nextRun, null, 'run-now does not compute a next_run for a disabled schedule');
  assert.equal(s.lastRun, '2030-01-01T00:02:00.000Z');
  const runs = await store.schedules.runs(s.id, 10);
  assert.deepEqual(
    runs.map((x) => x.logFile),
    [logs[2], logs[1]],
  );
  assert.equal(runCli(root, ['logs', 'show', logs[0]!]).code, 3, "the pruned run's log is deleted");
  assert.equal(existsSync(join(root, 'logs', 'breakout', logs[0]!)), false, "the pruned run's log is deleted");
  assert.match(runLog(root, logs[2]!), /^Command: /);
});

test('schedule commands: validation with the field named, one schedule per dictionary, a target required, toggle and remove', async () => {
  const { store, root } = await home();
  const noTarget = runCli(root, ['--json', 'schedule', 'add', POPSTAN]);
  assert.equal(noTarget.code, 4, show(noTarget));
  assert.equal(noTarget.json().error, 'TARGET_NOT_CONFIGURED');
  assert.deepEqual(ok(runCli(root, ['--json', 'schedule', 'list'])).json().unscheduled_dictionaries, []);

  await setTargetConfig(store, POPSTAN, { type: 'sqlite', file: join(store.home.targets, 'popstan.sqlite') });
  assert.deepEqual(
    ok(runCli(root, ['--json', 'schedule', 'list']))
      .json()
      .unscheduled_dictionaries.map((d: { name: string }) => d.name),
    [POPSTAN],
  );
  const bad = runCli(root, ['--json', 'schedule', 'add', POPSTAN, '--cron', '0 25 * * *']);
  assert.equal(bad.code, 2, show(bad));
  assert.deepEqual([bad.json().error, bad.json().message], ['CRON_INVALID', 'hour: 25 is out of range 0-23']);

  const added = ok(runCli(root, ['--json', 'schedule', 'add', POPSTAN])).json();
  assert.deepEqual([added.enabled, added.cron_expression, added.next_run], [false, '0 2 * * *', null]);
  assert.equal(ok(runCli(root, ['--json', 'schedule', 'add', POPSTAN]), 4).json().error, 'SCHEDULE_EXISTS');

  const on = ok(
    runCli(root, ['--json', 'schedule', 'toggle', POPSTAN], { env: { SDS_NOW: '2025-03-29T12:00:00Z', SDS_TIMEZONE: 'Europe/Paris' } }),
  ).json();
  assert.equal(on.enabled, true);
  assert.equal(on.next_run, '2025-03-30T01:00:00.000Z', '02:00 does not exist in Paris that night: 03:00 CEST');
  assert.notEqual(on.modified_time, added.modified_time, 'modified_time changes on every change');
  const off = ok(runCli(root, ['--json', 'schedule', 'update', POPSTAN, '--disable', '--cron', '*/10 * * * *'])).json();
  assert.deepEqual([off.enabled, off.cron_expression, off.next_run], [false, '*/10 * * * *', null]);
  const badZone = runCli(root, ['--json', 'schedule', 'list'], { env: { SDS_TIMEZONE: 'Europe/Pariss' } });
  assert.equal(badZone.json().error, 'CONFIG_INVALID');

  ok(runCli(root, ['schedule', 'remove', POPSTAN]));
  assert.equal(ok(runCli(root, ['--json', 'schedule', 'runs', POPSTAN]), 3).json().error, 'SCHEDULE_NOT_FOUND');

  // Deleting the dictionary deletes its schedule.
  const simple = (await uploadDictionary(store, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' })).name;
  await setTarget(store, simple, { type: 'sqlite', file: join(root, 'targets', 'simple.sqlite') });
  ok(runCli(root, ['schedule', 'add', simple]));
  assert.equal((await store.schedules.list()).length, 1);
  ok(runCli(root, ['dict', 'delete', simple]));
  assert.equal((await store.schedules.list()).length, 0);
});
