/**
 * Full breakout of the Popstan census into PostgreSQL, MariaDB and SQLite: exact row counts
 * and values checked against the raw fixed-width lines of the fixture (docs/breakout.md).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMysqlDatabase, createPostgresDatabase, createSqliteFile, type TestDatabase } from '../../helpers/test-databases.js';
import {
  datLines,
  groupPopstan,
  openQuery,
  popstanModel,
  popstanStore,
  POPSTAN,
  rawNumeric,
  setTargetConfig,
} from '../../helpers/breakout-helpers.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { runBreakoutNow, startBreakout } from '../../../src/core/breakout/jobs/jobs.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';

const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

const lines = datLines();
const cases = groupPopstan(lines);
const personLines = lines.filter((l) => l[0] === '1').length;

async function fullBreakout(db: TestDatabase): Promise<void> {
  const t = await popstanStore([fixture('popstan-census.dat')], db.config);
  try {
    // The start checks (tables absent) then the job itself, in this process.
    const start = await startBreakout(t.store, { dictionaries: [POPSTAN] }, { spawn: false });
    assert.equal(start.status, 'started');
    assert.equal(start.message, `Breakout of ${POPSTAN} started in the background (4872 cases)`);
    const { runJob } = await import('../../../src/core/breakout/jobs/run-job.js');
    const job = await runJob(t.store, start.job_id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(job.result?.total_cases, 4872);
    assert.equal(job.warnings, 0);
    assert.deepEqual(job.result?.tables_created, [
      'popstan_cases',
      'popstan_person',
      'popstan_housing',
      'popstan_notes',
      'popstan_cspro_jobs',
      'popstan_value_sets',
      'popstan_items',
    ]);

    const model = await popstanModel(t.store);
    const ids = model.levels[0]!.ids;
    const person = model.levels[0]!.records.find((r) => r.name === 'PERSON')!;
    const housing = model.levels[0]!.records.find((r) => r.name === 'HOUSING')!;
    const q = await openQuery(db.config);
    try {
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), 4872);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), 4872);
      assert.ok(personLines > 20000);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), personLines);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_notes'), 0);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cspro_jobs'), 1);
      const jobRow = (await q.all('SELECT job_id, cases_processed, status FROM popstan_cspro_jobs'))[0]!;
      assert.deepEqual(
        { ...jobRow, cases_processed: Number(jobRow.cases_processed) },
        { job_id: start.job_id, cases_processed: 4872, status: 'completed' },
      );

      // A roster person with a subitem (P15_OCC/P15A_OCC filled) and a blank item, not the first of its case.
      const p15 = person.items.find((i) => i.name === 'P15_OCC')!;
      let chosen: { c: (typeof cases)[number]; occ: number; line: string } | undefined;
      for (const c of cases) {
        const k = c.persons.findIndex(
          (l, i) => i >= 1 && (rawNumeric(l, p15) ?? 0) >= 10 && person.items.some((it) => rawNumeric(l, it) === null),
        );
        if (k >= 0) {
          chosen = { c, occ: k + 1, line: c.persons[k]! };
          break;
        }
      }
      assert.ok(chosen, 'the fixture has a person with an occupation and a blank item');
      const rows = await q.all('SELECT * FROM popstan_person WHERE case_id = ? AND occ = ?', [chosen.c.guid, chosen.occ]);
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      let blanks = 0;
      for (const item of person.items) {
        const expected = rawNumeric(chosen.line, item);
        if (expected === null) blanks += 1;
        assert.equal(
          row[item.name.toLowerCase()] === null ? null : Number(row[item.name.toLowerCase()]),
          expected,
          `${item.name} of ${chosen.line}`,
        );
      }
      assert.ok(blanks > 0);
      // The subitem is the first digit of its parent.
      assert.equal(Number(row.p15a_occ), Number(chosen.line.slice(p15.start - 1, p15.start)));
      assert.equal(Number(row.p15a_occ), Math.floor(Number(row.p15_occ) / 10));

      // Its case row: key and level-1 ids straight from the id columns.
      const caseRow = (await q.all('SELECT * FROM popstan_cases WHERE case_id = ?', [chosen.c.guid]))[0]!;
      assert.equal(caseRow.case_key, chosen.line.slice(1, 19));
      for (const item of ids) assert.equal(Number(caseRow[item.name.toLowerCase()]), rawNumeric(chosen.line, item), item.name);
      assert.equal(Number(caseRow.revision) > 0, true);

      // Its housing row.
      const hline = chosen.c.housing[0]!;
      const hrow = (await q.all('SELECT * FROM popstan_housing WHERE case_id = ?', [chosen.c.guid]))[0]!;
      assert.equal(Number(hrow.occ), 1);
      for (const item of housing.items) {
        const v = hrow[item.name.toLowerCase()];
        assert.equal(v === null ? null : Number(v), rawNumeric(hline, item), `housing ${item.name}`);
      }

      // occ is 1..k inside every case, k = the person lines of the case in the .dat.
      const perCase = await q.all(
        'SELECT case_id, COUNT(*) AS n, MIN(occ) AS lo, MAX(occ) AS hi, COUNT(DISTINCT occ) AS d FROM popstan_person GROUP BY case_id',
      );
      const expected = new Map(cases.filter((c) => c.persons.length > 0).map((c) => [c.guid, c.persons.length]));
      assert.equal(perCase.length, expected.size);
      for (const r of perCase) {
        const k = expected.get(String(r.case_id));
        assert.ok(k !== undefined, `unexpected case ${String(r.case_id)}`);
        assert.deepEqual([Number(r.n), Number(r.lo), Number(r.hi), Number(r.d)], [k, 1, k, k], String(r.case_id));
      }
      // Every person row equals its raw line at one column: the age, for all rows at once.
      const age = person.items.find((i) => i.name === 'P04_AGE')!;
      const byCase = new Map(cases.map((c) => [c.guid, c]));
      let checked = 0;
      for (const r of await q.all('SELECT case_id, occ, p04_age FROM popstan_person')) {
        const line = byCase.get(String(r.case_id))!.persons[Number(r.occ) - 1]!;
        assert.equal(r.p04_age === null ? null : Number(r.p04_age), rawNumeric(line, age));
        checked += 1;
      }
      assert.equal(checked, personLines);
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
  }
}

test('PostgreSQL: full Popstan breakout, exact counts and values', { timeout: 60_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  await fullBreakout(db);
});

test('MariaDB: full Popstan breakout, exact counts and values', { timeout: 60_000 }, async () => {
  const db = await createMysqlDatabase();
  databases.push(db);
  await fullBreakout(db);
});

test('SQLite: full Popstan breakout, exact counts and values', { timeout: 60_000 }, async () => {
  const db = createSqliteFile();
  databases.push(db);
  await fullBreakout(db);
});

test('SQLite: unmapped specials become NULL, each counted as a warning', { timeout: 30_000 }, async () => {
  // Popstan's value sets map no special to a code (only NOTAPPL as blank), so the mapped case
  // cannot occur with its data; unmapped specials sent by a client must be NULL + a warning.
  const db = createSqliteFile();
  databases.push(db);
  const t = await tempStore();
  const dir = mkdtempSync(join(tmpdir(), 'sds-specials-'));
  try {
    await uploadDictionary(t.store, { source: readFileSync(fixture('popstan-census.json.dcf')), label: 'popstan' });
    const ids = { PROVINCE: 1, DISTRICT: 1, VILLAGE: 1, EA: 1, UR: 1, BUILDING: 1, HU: 1, HH: 1 };
    const file = join(dir, 'cases.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          id: '11111111-2222-4333-8444-555555555555',
          caseids: '010100100110010011',
          clock: [],
          'level-1': {
            id: ids,
            HOUSING: { H01_TYPE: 1, H13_PERSONS: 2 },
            PERSON: [
              { LINE: 1, P02_REL: 1, P03_SEX: 1, P04_AGE: 'MISSING' },
              { LINE: 2, P02_REL: 2, P03_SEX: 'REFUSED', P04_AGE: 30 },
            ],
          },
        },
      ]),
    );
    const r = await importCases(t.store, POPSTAN, [file]);
    assert.equal(r.total.inserted, 1, JSON.stringify(r.files[0]!.errors));
    await setTargetConfig(t.store, POPSTAN, db.config);
    const lines: string[] = [];
    const s = await runBreakoutNow(t.store, { dictionary: POPSTAN }, { log: (l) => lines.push(l) });
    assert.equal(s.status, 'completed');
    if (s.status !== 'completed') return;
    assert.equal(s.result.total_cases, 1);
    assert.equal(s.result.warnings, 2);
    assert.equal(lines.filter((l) => l.startsWith('warning:') && l.includes('unmapped special value')).length, 2);
    const q = await openQuery(db.config);
    try {
      const rows = await q.all('SELECT occ, line, p03_sex, p04_age FROM popstan_person ORDER BY occ');
      assert.deepEqual(rows, [
        { occ: 1, line: 1, p03_sex: 1, p04_age: null },
        { occ: 2, line: 2, p03_sex: null, p04_age: 30 },
      ]);
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
