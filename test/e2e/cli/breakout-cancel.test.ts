/**
 * `sds breakout cancel` through the compiled CLI against a real PostgreSQL target: a running job
 * stops after the page it is writing (the target holds whole pages only, exactly the cases the
 * status reports), the next `process-cases-by-dict` loads exactly the rest; a pending job is
 * cancelled at once and its process then does nothing; a job that has ended is a CONFLICT
 * (exit 4) and an unknown job NOT_FOUND (exit 3).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, groupPopstan, openQuery, POPSTAN, until, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { processAlive } from '../../../src/core/breakout/jobs/job-process.js';
import { ERROR_CODES } from '../../../src/shared/errors.js';

const PAGE = 2000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const HMS = /^\d\d:\d\d:\d\d$/;
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };

let home: Awaited<ReturnType<typeof tempHome>>;
let store: Store;
let db: TestDatabase;
const dirs: string[] = [];

before(async () => {
  home = await tempHome();
  db = await createPostgresDatabase();
  const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
  assert.equal(up.code, 0, show(up));
  store = await openStore(home);
});

after(async () => {
  await store?.close();
  await home?.cleanup();
  await db?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test(
  'cancel a running job: whole pages only, status cancelled, then process-cases-by-dict loads exactly the rest',
  { timeout: 120_000 },
  async () => {
    // 6 copies of Popstan under provinces 30–35: 29,232 distinct cases, 15 pages, so that the
    // cancel (a CLI process to start) lands well before the end even on a fast machine.
    const dir = mkdtempSync(join(tmpdir(), 'sds-cancel-'));
    dirs.push(dir);
    const lines = [30, 31, 32, 33, 34, 35].flatMap((p) => withProvince(datLines(), p));
    const cases = groupPopstan(lines);
    const total = cases.length;
    assert.equal(total, 29232);
    const persons = lines.filter((l) => l[0] === '1').length;
    const imported = await sds(home.root, ['cases', 'import', POPSTAN, writeDat(dir, 'big.dat', lines), '--json']);
    assert.equal(imported.code, 0, show(imported));
    assert.equal(imported.json().total.inserted, total);
    const set = await sds(home.root, ['target', 'set', POPSTAN, '--type', 'postgresql', '--url', db.config.url!]);
    assert.equal(set.code, 0, show(set));

    const start = await sds(home.root, ['breakout', 'start', POPSTAN, '--json'], { env: NO_DEFAULT });
    assert.equal(start.code, 0, show(start));
    const jobId: string = start.json().job_id;
    // Cancel once the first page is in.
    await until(
      'the first page',
      async () => {
        const j = (await store.jobs.get(jobId))!;
        assert.ok(j.status === 'pending' || j.status === 'running', `the job ended before it could be cancelled: ${j.status}`);
        return j.status === 'running' && (j.progress?.processed ?? 0) > 0;
      },
      60_000,
      5,
    );
    // Hold the target's case table: the job then waits inside its next page, so the cancel below
    // lands while it runs however fast the machine is (15 short pages race a CLI start otherwise).
    const holder = new pg.Client({ connectionString: db.config.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE popstan_cases IN ACCESS EXCLUSIVE MODE');
    const release = async () => {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end().catch(() => undefined);
    };
    after(release);
    assert.equal((await store.jobs.get(jobId))!.status, 'running');
    const cancel = await sds(home.root, ['breakout', 'cancel', jobId]);
    assert.equal(cancel.code, 0, show(cancel));
    assert.equal(
      cancel.stderr,
      `Cancel requested: job ${jobId} stops after the page it is writing. Follow it: sds breakout status ${jobId} --watch\n`,
    );
    const shown = cancel.stdout.split('\n');
    assert.equal(shown.length, 6, show(cancel));
    assert.equal(shown[0], `job        ${jobId}`);
    assert.equal(shown[1], 'status     running');
    assert.match(shown[2]!, new RegExp(`^progress   ${POPSTAN} (\\d+)/${total} \\(\\d+%\\)$`));
    assert.match(shown[3]!, /^elapsed {4}\d\d:\d\d:\d\d$/);
    assert.match(shown[4]!, /^remaining {2}\d\d:\d\d:\d\d$/);
    assert.equal(shown[5], '');
    assert.equal((await store.jobs.get(jobId))!.cancelRequested, true);
    await release();

    // --watch follows it to its end: cancelled, exit 1.
    const watched = await sds(home.root, ['breakout', 'status', jobId, '--watch', '--json']);
    assert.equal(watched.code, 1, show(watched));
    const final = watched.json();
    assert.deepEqual(Object.keys(final).sort(), ['cancelled_at', 'job_id', 'result', 'status']);
    assert.equal(final.job_id, jobId);
    assert.equal(final.status, 'cancelled');
    assert.match(final.cancelled_at, ISO);
    assert.deepEqual(final.result.dictionaries_processed, []);
    const processed: number = final.result.total_cases;
    assert.ok(processed > 0 && processed < total, `cancelled half way: ${processed} of ${total}`);
    assert.equal(processed % PAGE, 0, `whole pages only: ${processed}`);

    const [statusJson, statusHuman, jobs] = await Promise.all([
      sds(home.root, ['breakout', 'status', jobId, '--json']),
      sds(home.root, ['breakout', 'status', jobId]),
      sds(home.root, ['breakout', 'jobs', '--status', 'cancelled', '--json']),
    ]);
    assert.equal(statusJson.code, 0, show(statusJson));
    assert.deepEqual(statusJson.json(), final);
    assert.equal(statusHuman.code, 0, show(statusHuman));
    assert.equal(
      statusHuman.stdout,
      [
        `job           ${jobId}`,
        'status        cancelled',
        `cases         ${processed}`,
        'dictionaries  ',
        `cancelled at  ${final.cancelled_at}`,
        '',
      ].join('\n'),
    );
    const listed = jobs.json();
    assert.equal(listed.total, 1);
    assert.equal(listed.data[0].job_id, jobId);
    assert.equal(listed.data[0].status, 'cancelled');
    assert.equal(listed.data[0].cases_processed, processed);
    assert.match(listed.data[0].execution_time, HMS);
    assert.equal(listed.data[0].completed_at, final.cancelled_at);
    // The job process is gone.
    const pid = (await store.jobs.get(jobId))!.pid!;
    await until('the job process to exit', () => !processAlive(pid), 10_000);

    const expectedPersons = new Map(cases.map((c) => [c.guid, c.persons.length]));
    const q = await openQuery(db.config);
    try {
      // Exactly the cases the status reports, each one whole.
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), processed);
      assert.equal(await q.num('SELECT COUNT(DISTINCT case_id) FROM popstan_cases'), processed);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), processed);
      const loaded = (await q.all('SELECT case_id FROM popstan_cases')).map((r) => String(r.case_id));
      const personRows = await q.num('SELECT COUNT(*) FROM popstan_person');
      assert.equal(
        personRows,
        loaded.reduce((n, g) => n + expectedPersons.get(g)!, 0),
      );
      assert.deepEqual(
        (await q.all('SELECT job_id, status, cases_processed FROM popstan_cspro_jobs')).map((r) => [
          r.job_id,
          r.status,
          Number(r.cases_processed),
        ]),
        [[jobId, 'cancelled', processed]],
      );

      // A job that has ended cannot be cancelled: CONFLICT, exit 4.
      const again = await sds(home.root, ['breakout', 'cancel', jobId, '--json']);
      assert.equal(again.code, ERROR_CODES.CONFLICT.exit, show(again));
      assert.equal(again.code, 4);
      assert.deepEqual(again.json(), {
        error: 'CONFLICT',
        message: `breakout job ${jobId} has already ended (cancelled); only a pending or running job can be cancelled`,
        details: { job_id: jobId, status: 'cancelled' },
      });

      // The incremental run applies the rest, exactly.
      const rest = await sds(home.root, ['process-cases-by-dict', POPSTAN, '--json'], { env: NO_DEFAULT });
      assert.equal(rest.code, 0, show(rest));
      const done = rest.json();
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result.dictionaries_processed, [POPSTAN]);
      assert.equal(done.result.total_cases, total - processed);
      assert.deepEqual(done.result.tables_created, []);
      assert.equal(done.result.warnings, 0);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), total);
      assert.equal(await q.num('SELECT COUNT(DISTINCT case_id) FROM popstan_cases'), total);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), total);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), persons);
      const perCase = await q.all('SELECT case_id, COUNT(*) AS n, MAX(occ) AS hi FROM popstan_person GROUP BY case_id');
      assert.equal(perCase.length, cases.filter((c) => c.persons.length > 0).length);
      for (const r of perCase) {
        const n = expectedPersons.get(String(r.case_id));
        assert.deepEqual([Number(r.n), Number(r.hi)], [n, n]);
      }
      const jobRows = new Map(
        (await q.all('SELECT job_id, status, cases_processed FROM popstan_cspro_jobs')).map((r) => [
          r.job_id,
          [r.status, Number(r.cases_processed)],
        ]),
      );
      assert.deepEqual(
        jobRows,
        new Map([
          [jobId, ['cancelled', processed]],
          [done.job_id, ['completed', total - processed]],
        ]),
      );

      // Cancelling the completed job is a conflict too; humans get one line on stderr.
      const late = await sds(home.root, ['breakout', 'cancel', done.job_id]);
      assert.equal(late.code, 4, show(late));
      assert.equal(late.stdout, '');
      assert.equal(
        late.stderr,
        `sds: CONFLICT: breakout job ${done.job_id} has already ended (completed); only a pending or running job can be cancelled\n`,
      );
      assert.equal((await store.jobs.get(done.job_id))!.status, 'completed');
    } finally {
      await q.close();
    }
  },
);

test('cancel a pending job: cancelled at once, its process is not signalled and then does nothing', { timeout: 60_000 }, async () => {
  const sqliteDir = mkdtempSync(join(tmpdir(), 'sds-cancel-'));
  dirs.push(sqliteDir);
  const file = join(sqliteDir, 'target.sqlite');
  const other = await sds(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple']);
  assert.equal(other.code, 0, show(other));
  assert.equal((await sds(home.root, ['target', 'set', 'SIMPLECAPI_DICT', '--type', 'sqlite', '--file', file])).code, 0);
  // A job handed to a process that has not started its work yet (a stand-in that only sleeps).
  const job = await store.jobs.create({
    id: randomUUID(),
    dictionaries: ['SIMPLECAPI_DICT'],
    mode: 'full',
    threads: 1,
    overwrite: true,
    origin: 'cli',
  });
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    await store.jobs.setPid(job.id, sleeper.pid!);
    const human = await sds(home.root, ['breakout', 'status', job.id]);
    assert.equal(
      human.stdout,
      [
        `job           ${job.id}`,
        'status        pending',
        'dictionaries  SIMPLECAPI_DICT',
        'threads       1',
        `created at    ${job.createdAt}`,
        '',
      ].join('\n'),
    );

    const r = await sds(home.root, ['breakout', 'cancel', job.id, '--json']);
    assert.equal(r.code, 0, show(r));
    const reply = r.json();
    assert.deepEqual(Object.keys(reply).sort(), ['cancelled_at', 'job_id', 'result', 'status']);
    assert.equal(reply.job_id, job.id);
    assert.equal(reply.status, 'cancelled');
    assert.deepEqual(reply.result, { dictionaries_processed: [], total_cases: 0 });
    assert.match(reply.cancelled_at, ISO);
    assert.equal(r.stderr, '');
    assert.ok(processAlive(sleeper.pid!), 'the process of a pending job is not signalled');
    assert.equal(sleeper.exitCode, null);

    // The job's process starting late finds the job final and leaves the target alone.
    const late = await sds(home.root, ['breakout', 'run-job', job.id]);
    assert.equal(late.code, 1, show(late));
    assert.equal(existsSync(file), false, 'no target file was created');
    const status = await sds(home.root, ['breakout', 'status', job.id, '--json']);
    assert.deepEqual(status.json(), reply);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('cancel an unknown job is NOT_FOUND (exit 3); a job whose process died is reported failed and cannot be cancelled', async () => {
  const [j, h] = await Promise.all([
    sds(home.root, ['breakout', 'cancel', 'no-such-job', '--json']),
    sds(home.root, ['breakout', 'cancel', 'no-such-job']),
  ]);
  assert.equal(j.code, ERROR_CODES.NOT_FOUND.exit, show(j));
  assert.equal(j.code, 3);
  assert.deepEqual(j.json(), { error: 'NOT_FOUND', message: 'breakout job no-such-job not found', details: { job_id: 'no-such-job' } });
  assert.equal(h.code, 3, show(h));
  assert.equal(h.stdout, '');
  assert.equal(h.stderr, 'sds: NOT_FOUND: breakout job no-such-job not found\n');

  // A running job whose process is gone (a pid that has exited).
  const gone = spawnSync(process.execPath, ['-e', '0']);
  const job = await store.jobs.create({
    id: randomUUID(),
    dictionaries: [POPSTAN],
    mode: 'incremental',
    threads: 1,
    overwrite: false,
    origin: 'cli',
  });
  assert.ok(await store.jobs.markRunning(job.id, gone.pid!));
  const r = await sds(home.root, ['breakout', 'cancel', job.id, '--json']);
  assert.equal(r.code, 4, show(r));
  assert.deepEqual(r.json(), {
    error: 'CONFLICT',
    message: `breakout job ${job.id} has already ended (failed); only a pending or running job can be cancelled`,
    details: { job_id: job.id, status: 'failed' },
  });
  const s = (await sds(home.root, ['breakout', 'status', job.id, '--json'])).json();
  assert.equal(s.status, 'failed');
  assert.equal(s.error.code, 'BRK-002');
});
