/**
 * Crash safety on a PostgreSQL target: a background job SIGKILLed mid-run is taken over (its
 * lease's holder is a process of this host that no longer runs: docs/breakout.md#leases) by the
 * next look at the job, handed to a new job process, and finished from its saved cursor, leaving
 * exactly the rows of a clean run. Spawns its `run-job` entry point (docs/decisions.md, "Process
 * model"); runs on the run's store (SDS_TEST_STORE).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, groupPopstan, openQuery, popstanStore, POPSTAN, until, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { jobStatus, startBreakout, waitForJob } from '../../../src/core/breakout/jobs/jobs.js';
import { processAlive } from '../../../src/core/breakout/jobs/job-process.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
after(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a SIGKILLed job is taken over and finished from its cursor, its rows exact', { timeout: 150_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  const dir = mkdtempSync(join(tmpdir(), 'sds-crash-'));
  dirs.push(dir);
  // 5 copies of Popstan under provinces 20–24: 24,360 distinct cases.
  const base = datLines();
  const lines = [20, 21, 22, 23, 24].flatMap((p) => withProvince(base, p));
  const cases = groupPopstan(lines);
  assert.equal(cases.length, 24360);
  assert.equal(new Set(cases.map((c) => c.key)).size, 24360);
  const persons = lines.filter((l) => l[0] === '1').length;
  const t = await popstanStore([writeDat(dir, 'big.dat', lines)], db.config);
  try {
    // The job saves its cursor after every page (jobs.cursor_save_pages, docs/limits.md), so it
    // can be killed after a save and well before its end however fast the machine breaks out.
    const config = join(t.store.home.root, 'config.json');
    const settings = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(config, JSON.stringify({ ...settings, jobs: { cursor_save_pages: 1 } }));
    const start = await startBreakout(t.store, { dictionaries: [POPSTAN] });
    assert.equal(start.status, 'started');
    // Wait for the first save of the cursor (after the first page), then kill the process hard.
    const dictId = (await t.store.dictionaries.find(POPSTAN))!.id;
    const pid = await until(
      'the cursor saved',
      async () => {
        const j = (await t.store.jobs.get(start.job_id))!;
        assert.ok(j.status === 'pending' || j.status === 'running', `job ended before it could be killed: ${j.status}`);
        const saved = ((await t.store.breakoutState.get(dictId))?.cursor.revision ?? 0) > 0;
        return j.status === 'running' && j.pid !== null && saved ? j.pid : undefined;
      },
      60_000,
      5,
    );
    process.kill(pid, 'SIGKILL');
    await until('the job process to be gone', () => !processAlive(pid), 10_000);
    const killedAt = (await t.store.jobs.get(start.job_id))!;
    assert.ok(killedAt.progress!.processed < killedAt.progress!.total, 'killed before the end');

    // The next look at the job finds its holder gone and hands it to a new process.
    const s = await jobStatus(t.store, start.job_id);
    assert.equal(s.status, 'running');
    const taken = (await t.store.jobs.get(start.job_id))!;
    assert.equal(taken.takeovers, 1);
    assert.notEqual(taken.leaseNode, killedAt.leaseNode);
    const final = await waitForJob(t.store, start.job_id, undefined, 100);
    assert.equal(final.status, 'completed', JSON.stringify(final));
    if (final.status !== 'completed') return;
    // From the cursor: the cases the killed process had covered were not loaded again.
    assert.equal((await t.store.breakoutState.get(dictId))!.loadingJobId, null);
    assert.ok(
      final.result.total_cases > 0 && final.result.total_cases < 24360,
      `the takeover processed ${final.result.total_cases} of 24360`,
    );

    const q = await openQuery(db.config);
    try {
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), 24360);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), 24360);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), persons);
      assert.equal(await q.num('SELECT COUNT(*) FROM (SELECT DISTINCT case_id FROM popstan_cases) x'), 24360);
      assert.equal(await q.num('SELECT COUNT(*) FROM (SELECT DISTINCT case_id, occ FROM popstan_person) x'), persons);
      assert.equal(await q.num('SELECT COUNT(*) FROM (SELECT DISTINCT case_id, occ FROM popstan_housing) x'), 24360);
      const perCase = await q.all('SELECT case_id, COUNT(*) AS n, MAX(occ) AS hi FROM popstan_person GROUP BY case_id');
      const expected = new Map(cases.filter((c) => c.persons.length > 0).map((c) => [c.guid, c.persons.length]));
      assert.equal(perCase.length, expected.size);
      for (const r of perCase)
        assert.deepEqual([Number(r.n), Number(r.hi)], [expected.get(String(r.case_id)), expected.get(String(r.case_id))]);
      // The jobs table: one job, which the takeover completed.
      const jobRows = new Map((await q.all('SELECT job_id, status FROM popstan_cspro_jobs')).map((r) => [r.job_id, r.status]));
      assert.deepEqual([...jobRows], [[start.job_id, 'completed']]);
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
  }
});
