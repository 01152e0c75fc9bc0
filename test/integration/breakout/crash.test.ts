/**
 * Crash safety on PostgreSQL: a background job SIGKILLed mid-run is reported failed (BRK-002),
 * never running, and the next incremental run leaves exactly the rows of a clean run. Spawns
 * its `run-job` entry point (docs/decisions.md, "Process model").
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, groupPopstan, openQuery, popstanStore, POPSTAN, until, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { jobStatus, runBreakoutNow, startBreakout } from '../../../src/core/breakout/jobs/jobs.js';
import { processAlive } from '../../../src/core/breakout/jobs/job-process.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
after(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('PostgreSQL: a SIGKILLed job is failed BRK-002 and the incremental rerun is exact', { timeout: 150_000 }, async () => {
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
    const start = await startBreakout(t.store, { dictionaries: [POPSTAN] });
    assert.equal(start.status, 'started');
    // Wait for the first committed page, then kill the process hard.
    const pid = await until(
      'progress > 0',
      async () => {
        const j = (await t.store.jobs.get(start.job_id))!;
        assert.ok(j.status === 'pending' || j.status === 'running', `job ended before it could be killed: ${j.status}`);
        return j.status === 'running' && j.pid !== null && (j.progress?.processed ?? 0) > 0 ? j.pid : undefined;
      },
      60_000,
      5,
    );
    process.kill(pid, 'SIGKILL');
    await until('the job process to be gone', () => !processAlive(pid), 10_000);
    const killedAt = (await t.store.jobs.get(start.job_id))!;
    assert.ok(killedAt.progress!.processed < killedAt.progress!.total, 'killed before the end');

    const s = await jobStatus(t.store, start.job_id);
    assert.equal(s.status, 'failed');
    if (s.status === 'failed') {
      assert.equal(s.error.code, 'BRK-002');
      assert.equal(s.error.message, `the job process (pid ${pid}) ended without finishing the job`);
    }
    assert.equal((await jobStatus(t.store, start.job_id)).status, 'failed');

    const q = await openQuery(db.config);
    try {
      const partial = await q.num('SELECT COUNT(*) FROM popstan_cases');
      assert.ok(partial > 0 && partial < 24360, `partial load: ${partial}`);

      const rerun = await runBreakoutNow(t.store, { dictionary: POPSTAN });
      assert.equal(rerun.status, 'completed', JSON.stringify(rerun));
      if (rerun.status !== 'completed') return;
      assert.ok(
        rerun.result.total_cases > 0 && rerun.result.total_cases <= 24360 - partial + 2000 * 1,
        `rerun processed ${rerun.result.total_cases}`,
      );

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
      // The jobs table: the rerun completed; the killed job's row, left `running` by the kill,
      // was marked failed when the rerun started.
      const jobRows = new Map((await q.all('SELECT job_id, status FROM popstan_cspro_jobs')).map((r) => [r.job_id, r.status]));
      assert.equal(jobRows.size, 2);
      assert.equal(jobRows.get(rerun.job_id), 'completed');
      assert.equal(jobRows.get(start.job_id), 'failed');
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
  }
});
