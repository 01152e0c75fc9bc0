/**
 * Incremental breakout on PostgreSQL and MariaDB: after a full run, 10 cases modified, 5
 * soft-deleted and 3 added; the next run processes exactly those 18 and the target mirrors the store.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMysqlDatabase, createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import {
  datLines,
  groupPopstan,
  openQuery,
  popstanModel,
  popstanStore,
  POPSTAN,
  rawNumeric,
  withProvince,
  writeDat,
} from '../../helpers/breakout-helpers.js';
import { fixture } from '../../helpers/temp-home.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { deleteCase } from '../../../src/core/cases/delete.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
after(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cases = groupPopstan(datLines());
const personLines = cases.reduce((n, c) => n + c.persons.length, 0);

async function incremental(db: TestDatabase): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sds-incr-'));
  dirs.push(dir);
  const t = await popstanStore([fixture('popstan-census.dat')], db.config);
  try {
    const full = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(full.status, 'completed');
    if (full.status !== 'completed') return;
    assert.equal(full.result.total_cases, 4872);

    const person = (await popstanModel(t.store)).levels[0]!.records.find((r) => r.name === 'PERSON')!;
    const age = person.items.find((i) => i.name === 'P04_AGE')!;
    const withPersons = cases.filter((c) => c.persons.length >= 2);
    // 10 modified: the age of the first person becomes 77 (or 66 where it already is 77).
    const modified = withPersons.slice(100, 110);
    const newAge = (c: (typeof cases)[number]) => (rawNumeric(c.persons[0]!, age) === 77 ? 66 : 77);
    const modifiedLines = modified.flatMap((c) =>
      c.lines.map((l) =>
        l === c.persons[0] ? l.slice(0, age.start - 1) + String(newAge(c)).padStart(2, '0') + l.slice(age.start - 1 + age.length) : l,
      ),
    );
    // 3 new: copies of 3 cases under province 90 (the fixture's provinces are 01–15).
    const sources = withPersons.slice(200, 203);
    const newLines = withProvince(
      sources.flatMap((c) => c.lines),
      90,
    );
    const newCases = groupPopstan(newLines);
    assert.equal(newCases.length, 3);
    const r = await importCases(t.store, POPSTAN, [writeDat(dir, 'modified.dat', modifiedLines), writeDat(dir, 'new.dat', newLines)]);
    assert.deepEqual([r.total.updated, r.total.inserted, r.total.unchanged, r.total.failed], [10, 3, 0, 0]);
    // 5 deleted.
    const deleted = withPersons.slice(300, 305);
    for (const c of deleted) await deleteCase(t.store, POPSTAN, c.guid);

    const incr = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(incr.status, 'completed', JSON.stringify(incr));
    if (incr.status !== 'completed') return;
    assert.equal(incr.result.total_cases, 18);
    assert.deepEqual(incr.result.tables_created, []);

    const q = await openQuery(db.config);
    try {
      const expectedPersons =
        personLines - deleted.reduce((n, c) => n + c.persons.length, 0) + newCases.reduce((n, c) => n + c.persons.length, 0);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), 4872 - 5 + 3);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), 4872 - 5 + 3);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), expectedPersons);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cspro_jobs'), 2);
      assert.equal(await q.num("SELECT COUNT(*) FROM popstan_cspro_jobs WHERE status = 'completed'"), 2);
      assert.equal(await q.num('SELECT cases_processed FROM popstan_cspro_jobs WHERE job_id = ?', [incr.job_id]), 18);
      for (const c of deleted) {
        for (const table of ['popstan_cases', 'popstan_housing', 'popstan_person', 'popstan_notes']) {
          assert.equal(await q.num(`SELECT COUNT(*) FROM ${table} WHERE case_id = ?`, [c.guid]), 0, `${c.key} in ${table}`);
        }
      }
      for (const c of modified) {
        const rows = await q.all('SELECT occ, p04_age FROM popstan_person WHERE case_id = ? ORDER BY occ', [c.guid]);
        assert.deepEqual(
          rows.map((x) => [Number(x.occ), x.p04_age === null ? null : Number(x.p04_age)]),
          c.persons.map((l, i) => [i + 1, i === 0 ? newAge(c) : rawNumeric(l, age)]),
          c.key,
        );
        assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing WHERE case_id = ?', [c.guid]), 1);
        assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases WHERE case_id = ?', [c.guid]), 1);
      }
      for (const c of newCases) {
        const caseRow = (await q.all('SELECT case_key, province FROM popstan_cases WHERE case_id = ?', [c.guid]))[0]!;
        assert.deepEqual({ key: caseRow.case_key, province: Number(caseRow.province) }, { key: c.key, province: 90 });
        const rows = await q.all('SELECT occ, p04_age FROM popstan_person WHERE case_id = ? ORDER BY occ', [c.guid]);
        assert.deepEqual(
          rows.map((x) => [Number(x.occ), x.p04_age === null ? null : Number(x.p04_age)]),
          c.persons.map((l, i) => [i + 1, rawNumeric(l, age)]),
        );
      }
      // Untouched cases were not rewritten: their breakout_time is the full run's.
      assert.equal(await q.num('SELECT COUNT(DISTINCT breakout_time) FROM popstan_cases'), 2);
    } finally {
      await q.close();
    }

    // Nothing changed since: the next run processes nothing.
    const idle = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(idle.status === 'completed' && idle.result.total_cases, 0);
  } finally {
    await t.cleanup();
  }
}

test('PostgreSQL: incremental run applies exactly the 18 changed cases', { timeout: 60_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  await incremental(db);
});

test('MariaDB: incremental run applies exactly the 18 changed cases', { timeout: 60_000 }, async () => {
  const db = await createMysqlDatabase();
  databases.push(db);
  await incremental(db);
});
