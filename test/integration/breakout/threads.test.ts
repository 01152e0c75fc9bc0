/**
 * threads 4 writes the same tables as threads 1 on PostgreSQL: same row counts and the same
 * checksum of each table's sorted content (breakout_time aside, it is the run's own time).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, openQuery, popstanStore, POPSTAN, tableChecksum, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
after(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('PostgreSQL: threads 4 gives the same tables as threads 1', { timeout: 120_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  const dir = mkdtempSync(join(tmpdir(), 'sds-threads-'));
  dirs.push(dir);
  // 2 copies of Popstan: 9,744 cases, 5 pages of 2,000, so 4 workers all take pages.
  const base = datLines();
  const lines = [30, 31].flatMap((p) => withProvince(base, p));
  const persons = lines.filter((l) => l[0] === '1').length;
  const t = await popstanStore([writeDat(dir, 'two.dat', lines)], db.config);
  try {
    const sums = async () => {
      const q = await openQuery(db.config);
      try {
        const out: Record<string, { rows: number; sha: string }> = {};
        for (const table of ['popstan_cases', 'popstan_person', 'popstan_housing', 'popstan_notes']) {
          out[table] = await tableChecksum(q, db.config, table, ['breakout_time']);
        }
        return out;
      } finally {
        await q.close();
      }
    };
    const one = await runBreakoutNow(t.store, { dictionary: POPSTAN, threads: 1, overwrite: true });
    assert.equal(one.status === 'completed' && one.result.total_cases, 9744);
    const single = await sums();
    assert.deepEqual(
      Object.values(single).map((s) => s.rows),
      [9744, persons, 9744, 0],
    );
    const four = await runBreakoutNow(t.store, { dictionary: POPSTAN, threads: 4, overwrite: true });
    assert.equal(four.status === 'completed' && four.result.total_cases, 9744);
    assert.deepEqual(await sums(), single);
  } finally {
    await t.cleanup();
  }
});
