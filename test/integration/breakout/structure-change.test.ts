/**
 * A dictionary replaced by one whose HOUSING record gained an item: the next incremental run
 * sees the new structure, rebuilds every table (new column present) and reloads all cases.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { columnsOf, datLines, openQuery, popstanStore, POPSTAN } from '../../helpers/breakout-helpers.js';
import { fixture } from '../../helpers/temp-home.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';

const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

const TABLES = [
  'popstan_cases',
  'popstan_person',
  'popstan_housing',
  'popstan_notes',
  'popstan_cspro_jobs',
  'popstan_value_sets',
  'popstan_items',
];

test('PostgreSQL: a record that gained an item makes the incremental run rebuild the tables', { timeout: 60_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  const persons = datLines().filter((l) => l[0] === '1').length;
  const t = await popstanStore([fixture('popstan-census.dat')], db.config);
  try {
    const first = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(first.status === 'completed' && first.result.total_cases, 4872);

    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8'));
    const housing = dcf.levels[0].records.find((r: { name: string }) => r.name === 'HOUSING');
    assert.equal(housing.items.at(-1).name, 'H13_PERSONS');
    housing.items.push({ name: 'H14_SOLAR', labels: [{ text: 'Solar panels' }], contentType: 'numeric', length: 1, zeroFill: true });
    const up = await uploadDictionary(t.store, { source: Buffer.from(JSON.stringify(dcf)), label: 'popstan' });
    assert.equal(up.created, false);

    const q = await openQuery(db.config);
    try {
      const before = await columnsOf(q, db.config, 'popstan_housing');
      assert.equal(before.includes('h14_solar'), false);
      const rerun = await runBreakoutNow(t.store, { dictionary: POPSTAN });
      assert.equal(rerun.status, 'completed', JSON.stringify(rerun));
      if (rerun.status !== 'completed') return;
      assert.equal(rerun.result.total_cases, 4872);
      assert.deepEqual(rerun.result.tables_created, TABLES);
      assert.deepEqual(await columnsOf(q, db.config, 'popstan_housing'), [...before, 'h14_solar']);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), 4872);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), 4872);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), persons);
      // The stored cases have no value for the new item: NULL everywhere.
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing WHERE h14_solar IS NOT NULL'), 0);
      // The jobs table was rebuilt with the tables: only the rebuilding job.
      assert.deepEqual(await q.all('SELECT job_id, status FROM popstan_cspro_jobs'), [{ job_id: rerun.job_id, status: 'completed' }]);
    } finally {
      await q.close();
    }
    // Same structure again: incremental, nothing to do.
    const idle = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(idle.status === 'completed' && idle.result.total_cases, 0);
  } finally {
    await t.cleanup();
  }
});
