/**
 * Job and run logs in the store's file store (docs/logs.md#job-and-run-log-files): a breakout
 * job's log and a schedule run's log are written in the home's logs/breakout/ while they run and
 * put in the file store when they end, so that `sds logs show` prints them from any node of a
 * PostgreSQL store; `sds logs prune` and a purge remove them there. On SQLite the file store is
 * the home's logs/breakout/ itself. A job whose process died has its log stored by the reaper.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show, type CliResult } from '../../helpers/run-cli.js';
import { fixture, tempDir, tempHome } from '../../helpers/temp-home.js';
import { createPostgresDatabase } from '../../helpers/test-databases.js';
import { POPSTAN } from '../../helpers/breakout-helpers.js';
import { openStore } from '../../../src/store/open-store.js';
import { reapDeadJobs } from '../../../src/core/breakout/index.js';

const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };

function ok(r: CliResult, code = 0): CliResult {
  assert.equal(r.code, code, show(r));
  return r;
}

/** Popstan with its cases and a SQLite target in `root`'s targets folder. */
function popstan(root: string, env: Record<string, string | undefined> = {}): void {
  ok(runCli(root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'], { env }));
  ok(runCli(root, ['cases', 'import', POPSTAN, fixture('popstan-census.dat')], { env }));
  ok(runCli(root, ['target', 'set', POPSTAN, '--type', 'sqlite', '--file', join(root, 'targets', 'popstan.sqlite')], { env }));
}

/** Runs a job of Popstan (rebuilding its tables) in a background process of `root`'s home, to its end; its id. */
function runJob(root: string, env: Record<string, string | undefined> = {}): string {
  const r = ok(runCli(root, ['--json', 'breakout', 'start', POPSTAN, '--overwrite', '--wait'], { env: { ...NO_DEFAULT, ...env } }));
  return r.json<{ job_id: string }>().job_id;
}

const localLogs = (root: string) => (existsSync(join(root, 'logs', 'breakout')) ? readdirSync(join(root, 'logs', 'breakout')) : []);

test('a job log and a run log: printed by sds logs show, removed by prune and by a purge', async () => {
  // SDS_TEST_STORE chooses the store: SQLite keeps the logs in logs/breakout/, PostgreSQL in the database.
  const home = await tempHome();
  try {
    const store = await openStore(home);
    const inHome = store.fileStore.homeFolder('logs') !== undefined;
    await store.close();
    popstan(home.root);

    const first = runJob(home.root);
    const log = ok(runCli(home.root, ['logs', 'show', first])).stdout;
    assert.match(log, new RegExp(`${POPSTAN}: \\w+ breakout into `));
    assert.equal(ok(runCli(home.root, ['logs', 'show', `job-${first}.log`])).stdout, log, 'by its file name too');
    assert.equal(localLogs(home.root).includes(`job-${first}.log`), inHome, 'the local file goes once stored elsewhere');

    ok(runCli(home.root, ['schedule', 'add', POPSTAN]));
    const run = ok(runCli(home.root, ['--json', 'schedule', 'run-now', POPSTAN], { env: { ...NO_DEFAULT } })).json<{ log_file: string }>();
    assert.match(ok(runCli(home.root, ['logs', 'show', run.log_file])).stdout, /^Command: .*process-cases-by-dict CEN2000$/m);

    // The job of the run is the latest completed one, which metrics read: the first job's log goes.
    const pruned = ok(runCli(home.root, ['--json', 'logs', 'prune', '--older-than', '0', '--keep', '0'])).json<{
      kinds: { jobs: { files: number } };
    }>();
    assert.ok(pruned.kinds.jobs.files >= 1, JSON.stringify(pruned));
    const gone = runCli(home.root, ['logs', 'show', first]);
    assert.equal(gone.code, 3, show(gone));
    assert.match(gone.stderr, /NOT_FOUND/);

    ok(runCli(home.root, ['dict', 'delete', POPSTAN, '--with-cases', '--yes']));
    assert.equal(runCli(home.root, ['logs', 'show', run.log_file]).code, 3, 'the purge removed the run log');
    assert.deepEqual(
      localLogs(home.root).filter((f) => f.endsWith('.log')),
      [],
    );
    assert.equal(runCli(home.root, ['logs', 'show', '../config.json']).code, 2, 'a path is no log name');
  } finally {
    await home.cleanup();
  }
});

test('two homes on one PostgreSQL store: the job and run logs of one are read, pruned and purged from the other', async () => {
  const db = await createPostgresDatabase();
  const [a, b] = [tempDir(), tempDir()];
  const env = { SDS_STORE_URL: db.config.url! };
  try {
    ok(runCli(a.root, ['init'], { env }));
    ok(runCli(b.root, ['init'], { env }));
    popstan(a.root, env);

    const first = runJob(a.root, env);
    const second = runJob(a.root, env);
    assert.deepEqual(localLogs(a.root), [], 'home A keeps no finished log');
    const log = ok(runCli(b.root, ['logs', 'show', first], { env })).stdout;
    assert.match(log, new RegExp(`${POPSTAN}: \\w+ breakout into `));
    assert.match(ok(runCli(b.root, ['logs', 'show', second], { env })).stdout, / breakout into /);
    assert.deepEqual(localLogs(b.root), [], 'home B read it from the store');

    ok(runCli(a.root, ['schedule', 'add', POPSTAN], { env }));
    const r = ok(runCli(a.root, ['--json', 'schedule', 'run-now', POPSTAN], { env: { ...env, ...NO_DEFAULT } })).json<{
      outcome: string;
      log_file: string;
    }>();
    assert.equal(r.outcome, 'succeeded');
    assert.match(ok(runCli(b.root, ['logs', 'show', r.log_file], { env })).stdout, /^Exit code: 0$/m);

    // Pruned from B: the first job's log leaves the store (the run's job is the latest completed).
    ok(runCli(b.root, ['logs', 'prune', '--older-than', '0', '--keep', '0'], { env }));
    assert.equal(runCli(a.root, ['logs', 'show', first], { env }).code, 3);

    // Purged from B: the other logs of the dictionary leave the store.
    ok(runCli(b.root, ['dict', 'delete', POPSTAN, '--with-cases', '--yes'], { env }));
    for (const name of [second, r.log_file]) assert.equal(runCli(a.root, ['logs', 'show', name], { env }).code, 3, name);
  } finally {
    a.cleanup();
    b.cleanup();
    await db.drop();
  }
});

test('a job whose process died: the reaper puts what its log file holds on this machine in the store', async () => {
  const home = await tempHome();
  const store = await openStore(home);
  try {
    const inHome = store.fileStore.homeFolder('logs') !== undefined;
    const job = await store.jobs.create({
      id: 'crashed',
      dictionaries: ['CEN2000'],
      mode: 'full',
      threads: 1,
      overwrite: false,
      origin: 'cli',
    });
    // A process that has ended: its pid is no running process of this machine.
    await store.jobs.setPid(job.id, spawnSync('true').pid!);
    writeFileSync(join(home.breakoutLogs, 'job-crashed.log'), 'CEN2000: 2000 of 8000 cases\n');
    await reapDeadJobs(store);
    assert.equal((await store.jobs.get(job.id))!.status, 'failed');
    assert.equal(existsSync(join(home.breakoutLogs, 'job-crashed.log')), inHome, 'the local file goes once stored elsewhere');
    assert.equal(ok(runCli(home.root, ['logs', 'show', 'crashed'])).stdout, 'CEN2000: 2000 of 8000 cases\n');
  } finally {
    await store.close();
    await home.cleanup();
  }
});
