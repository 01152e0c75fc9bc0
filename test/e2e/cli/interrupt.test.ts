/**
 * Ctrl-C and SIGTERM mean the same for every command that waits for a job it started (issue 17,
 * item 6; docs/cli.md): the job stops at a safe point and ends cancelled, the command says so on
 * stderr (the job id and its final state) and exits 130 for SIGINT, 143 for SIGTERM; a second
 * signal exits at once with a note. `breakout status --watch` only stops following. The target
 * is a server that accepts connections and never answers, so every job is still running
 * (connecting) when the signal comes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { runCliAsync as sds, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { datLines, groupPopstan, POPSTAN, until, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { requireDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { silentServer } from '../../integration/dialects/fake-servers.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { processAlive } from '../../../src/core/breakout/jobs/job-process.js';
import { entryProcessArgs } from '../../../src/shared/entry-module.js';

const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };
let home: Awaited<ReturnType<typeof tempHome>>;
let store: Store;
let hang: Awaited<ReturnType<typeof silentServer>>;

before(async () => {
  home = await tempHome();
  hang = await silentServer();
  const dat = writeDat(
    home.root,
    'some.dat',
    groupPopstan(datLines())
      .slice(0, 200)
      .flatMap((c) => c.lines),
  );
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', POPSTAN, dat, '-q'],
    ['target', 'set', POPSTAN, '--type', 'postgresql', '--url', `postgresql://postgres@127.0.0.1:${hang.port}/hangs`],
    ['schedule', 'add', POPSTAN],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  store = await openStore(home);
});

after(async () => {
  await store?.close();
  await hang?.close();
  await home?.cleanup();
});

interface Running {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  exit: Promise<number | null>;
}

/** Starts the CLI without waiting for it, so the test can signal it. */
function start(args: string[]): Running {
  const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...NO_DEFAULT },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => err, stdout: () => out, exit };
}

const seen = new Set<string>();

/** The newest job not met before, once it is running (its process is connecting to the silent target). */
async function runningJob(): Promise<{ id: string; pid: number }> {
  const job = await until(
    'a running job',
    async () => {
      const [j] = (await store.jobs.list({ limit: 1 })).jobs;
      return j && !seen.has(j.id) && j.status === 'running' && j.pid !== null ? { id: j.id, pid: j.pid } : undefined;
    },
    30_000,
  );
  seen.add(job.id);
  return job;
}

async function jobStatus(id: string): Promise<{ status: string; result?: { total_cases: number } }> {
  const r = await sds(home.root, ['breakout', 'status', id, '--json']);
  assert.equal(r.code, 0, show(r));
  return r.json();
}

test('breakout start --wait: Ctrl-C cancels the job at a safe point, says so, exits 130', { timeout: 60_000 }, async () => {
  const cli = start(['breakout', 'start', POPSTAN, '--wait', '--overwrite']);
  const job = await runningJob();
  await until('the CLI to wait', () => cli.stderr().includes(`; job ${job.id}; Ctrl-C cancels it\n`), 10_000);
  cli.child.kill('SIGINT');
  const code = await cli.exit;
  assert.equal(code, 130, cli.stderr());
  const lines = cli.stderr().split('\n').filter(Boolean);
  assert.deepEqual(lines.slice(-2), [
    `sds: SIGINT: stopping job ${job.id} after the page it is writing (again to exit at once)`,
    `sds: interrupted by SIGINT: job ${job.id} stopped at a safe point: cancelled after 0 cases, resume with: sds process-cases-by-dict ${POPSTAN}`,
  ]);
  assert.match(cli.stdout(), new RegExp(`^job +${job.id}\\nstatus +cancelled\\n`));
  assert.equal((await jobStatus(job.id)).status, 'cancelled');
  await until('the job process to exit', () => !processAlive(job.pid), 10_000);
});

test('process-cases-by-dict: SIGTERM cancels its job, says so, exits 143', { timeout: 60_000 }, async () => {
  const cli = start(['process-cases-by-dict', POPSTAN]);
  const job = await runningJob();
  cli.child.kill('SIGTERM');
  assert.equal(await cli.exit, 143, cli.stderr());
  const lines = cli.stderr().split('\n').filter(Boolean);
  assert.deepEqual(lines.slice(-2), [
    `sds: SIGTERM: stopping job ${job.id} after the page it is writing (again to exit at once)`,
    `sds: interrupted by SIGTERM: job ${job.id} stopped at a safe point: cancelled after 0 cases, resume with: sds process-cases-by-dict ${POPSTAN}`,
  ]);
  assert.equal((await jobStatus(job.id)).status, 'cancelled');
});

test('schedule run-now: Ctrl-C reaches the breakout once, the run is recorded interrupted, exit 130', { timeout: 60_000 }, async () => {
  const cli = start(['schedule', 'run-now', POPSTAN]);
  const job = await runningJob();
  cli.child.kill('SIGINT');
  assert.equal(await cli.exit, 130, cli.stderr());
  const lines = cli.stderr().split('\n').filter(Boolean);
  assert.equal(lines[0], `sds: SIGINT: stopping the breakout of ${POPSTAN} after the page it is writing (again to exit at once)`);
  assert.match(
    lines.at(-1)!,
    new RegExp(
      `^sds: interrupted by SIGINT: run \\d+ of ${POPSTAN} ended interrupted: the run was interrupted \\(SIGINT\\): the breakout stopped after the page it was writing$`,
    ),
  );
  assert.equal((await jobStatus(job.id)).status, 'cancelled');
  const runs = await sds(home.root, ['schedule', 'runs', POPSTAN, '--json']);
  const [run] = runs.json().runs;
  assert.deepEqual([run.trigger, run.outcome, run.exit_code], ['run-now', 'interrupted', 130], JSON.stringify(run));
  await until('the breakout process to exit', () => !processAlive(job.pid), 10_000);
});

test('breakout status --watch: Ctrl-C only stops following; the job goes on', { timeout: 60_000 }, async () => {
  const started = await sds(home.root, ['breakout', 'start', POPSTAN, '--overwrite', '--json'], { env: NO_DEFAULT });
  assert.equal(started.code, 0, show(started));
  const id: string = started.json().job_id;
  const job = await runningJob();
  assert.equal(job.id, id);
  const cli = start(['breakout', 'status', id, '--watch']);
  await until('the watcher to wait', () => cli.stderr() === `following job ${id}; Ctrl-C stops following, the job goes on\n`, 10_000);
  cli.child.kill('SIGINT');
  assert.equal(await cli.exit, 130, cli.stderr());
  assert.equal(
    cli.stderr(),
    `following job ${id}; Ctrl-C stops following, the job goes on\n` +
      `sds: interrupted by SIGINT: stopped following job ${id}; the job goes on (follow it: sds breakout status ${id} --watch; stop it: sds breakout cancel ${id})\n`,
  );
  assert.equal((await store.jobs.get(id))!.status, 'running');
  assert.equal((await store.jobs.get(id))!.cancelRequested, false);
  const cancel = await sds(home.root, ['breakout', 'cancel', id]);
  assert.equal(cancel.code, 0, show(cancel));
  await until('the job to end', async () => (await store.jobs.get(id))!.status === 'cancelled', 20_000);
});

test('schedule run-now: a second Ctrl-C exits at once with a note; the breakout still stops by itself', { timeout: 60_000 }, async () => {
  const cli = start(['schedule', 'run-now', POPSTAN]);
  const job = await runningJob();
  // Hold the breakout process, so the first Ctrl-C cannot have stopped it when the second comes.
  process.kill(job.pid, 'SIGSTOP');
  try {
    cli.child.kill('SIGINT');
    await until('the stopping note', () => cli.stderr().includes(`sds: SIGINT: stopping the breakout of ${POPSTAN}`), 10_000);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 130, cli.stderr());
    assert.match(
      cli.stderr(),
      new RegExp(`\nsds: SIGINT again: exiting now; the breakout of ${POPSTAN} may still be stopping; see sds schedule runs ${POPSTAN}\n$`),
    );
    assert.equal((await store.jobs.get(job.id))!.status, 'running');
  } finally {
    process.kill(job.pid, 'SIGCONT');
  }
  // Woken up, the breakout handles the Ctrl-C it was passed and ends (its output went with the
  // command, so it may not get to record the job cancelled): either way the job is not left running.
  await until('the breakout process to exit', () => !processAlive(job.pid), 20_000);
  const final = await jobStatus(job.id);
  assert.ok(final.status === 'cancelled' || final.status === 'failed', JSON.stringify(final));
});

test(
  'a scheduled breakout whose reader is gone still records its stop: cancelled, exit 130, not taken over',
  { timeout: 60_000 },
  async () => {
    // The background process of a run, its output piped to a reader that has gone (a run-now that
    // exited at a second Ctrl-C): the stop note it writes fails with EPIPE, which must not kill it.
    const child = spawn(process.execPath, [...entryProcessArgs('scheduled-breakout'), '--home', home.root, POPSTAN], {
      env: { ...process.env, ...NO_DEFAULT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const job = await runningJob();
    assert.equal(job.pid, child.pid);
    child.stdout!.destroy();
    child.stderr!.destroy();
    child.kill('SIGINT');
    assert.equal(await exit, 130);
    assert.equal((await jobStatus(job.id)).status, 'cancelled');
  },
);

test(
  'cases import: Ctrl-C stops after the batch being written, what is committed stays, exit 130; running it again finishes',
  { timeout: 120_000 },
  async () => {
    // 10 copies of Popstan under provinces 40-49: 48,720 new cases, about 100 batches.
    const lines = Array.from({ length: 10 }, (_, i) => withProvince(datLines(), 40 + i)).flat();
    const total = groupPopstan(lines).length;
    const file = writeDat(home.root, 'big.dat', lines);
    const dictId = (await requireDictionary(store, POPSTAN)).id;
    const before = await store.cases.countActive(dictId);
    const cli = start(['cases', 'import', POPSTAN, file]);
    await until('the first batch', async () => (await store.cases.countActive(dictId)) > before, 60_000, 5);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 130, cli.stderr());
    const stored = (await store.cases.countActive(dictId)) - before;
    assert.ok(stored > 0 && stored < total, `stopped half way: ${stored} of ${total}`);
    const lines2 = cli.stderr().split('\n').filter(Boolean);
    assert.equal(lines2[0], 'sds: SIGINT: stopping the import after the batch it is writing (again to exit at once)');
    assert.equal(
      lines2.at(-1),
      `sds: interrupted by SIGINT: import stopped after ${stored} cases: ${stored} inserted and 0 updated are stored; run the same import again to finish it (unchanged cases are left alone)`,
    );
    assert.match(cli.stdout(), new RegExp(`\\t${stored}\\t${stored}\\t0\\t0\\t0\\t0\\t0\\n`), cli.stdout());
    const again = await sds(home.root, ['cases', 'import', POPSTAN, file, '--json']);
    assert.equal(again.code, 0, show(again));
    assert.deepEqual([again.json().total.inserted, again.json().total.unchanged], [total - stored, stored]);
    assert.equal((await store.cases.countActive(dictId)) - before, total);
  },
);

test('quickstart: Ctrl-C cancels its breakout job like the other waiting commands, exits 130', { timeout: 120_000 }, async () => {
  // The home's CEN2000 already points at the silent target, so the quickstart's breakout hangs connecting.
  const cli = start(['quickstart']);
  const job = await runningJob();
  cli.child.kill('SIGINT');
  assert.equal(await cli.exit, 130, cli.stderr());
  const lines = cli.stderr().split('\n').filter(Boolean);
  assert.deepEqual(lines.slice(-2), [
    `sds: SIGINT: stopping breakout job ${job.id} after the page it is writing (again to exit at once)`,
    `sds: interrupted by SIGINT: breakout job ${job.id} cancelled; run sds quickstart again to finish`,
  ]);
  assert.match(cli.stdout(), /^breakout +cancelled into /m);
  assert.equal((await jobStatus(job.id)).status, 'cancelled');
});
