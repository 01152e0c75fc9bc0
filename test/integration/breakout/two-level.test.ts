/**
 * Two-level dictionary (fixtures/cspro/two-level.text.dcf): 2 cases with several households
 * (level 2), each with a POP_RECC roster, broken out into SQLite and PostgreSQL. Level rows
 * carry `occ` per case; level-2 record rows carry `level_2_occ` and `occ` per household.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, createSqliteFile, type TestDatabase } from '../../helpers/test-databases.js';
import { openQuery, setTargetConfig, writeDat } from '../../helpers/breakout-helpers.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { caseGuid } from '../../../src/cspro/case/case-guid.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
after(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Person {
  line: number;
  sex: number;
  age: number;
  status: number | null;
}
interface Household {
  house: number;
  tel: number;
  heat: number;
  pc: number;
  persons: Person[];
}
interface Building {
  ids: string;
  roof: number;
  water: number;
  hus: number;
  households: Household[];
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
// Level-1 ids: PROV(2) DIST(2) VILLAGE(2) EA(3) BUILD(3), columns 2–13; HOUSE_NUMBER columns 14–16.
const BUILDINGS: Building[] = [
  {
    ids: '010203004005',
    roof: 2,
    water: 1,
    hus: 3,
    households: [
      {
        house: 1,
        tel: 1,
        heat: 2,
        pc: 0,
        persons: [
          { line: 1, sex: 1, age: 34, status: 2 },
          { line: 2, sex: 2, age: 31, status: 2 },
          { line: 3, sex: 1, age: 5, status: null },
        ],
      },
      { house: 2, tel: 2, heat: 1, pc: 1, persons: [{ line: 1, sex: 2, age: 70, status: 4 }] },
      {
        house: 7,
        tel: 1,
        heat: 1,
        pc: 1,
        persons: [
          { line: 1, sex: 1, age: 45, status: 1 },
          { line: 2, sex: 2, age: 102, status: 3 },
        ],
      },
    ],
  },
  {
    ids: '010203004006',
    roof: 1,
    water: 2,
    hus: 2,
    households: [
      {
        house: 1,
        tel: 2,
        heat: 2,
        pc: 2,
        persons: [
          { line: 1, sex: 2, age: 28, status: 1 },
          { line: 2, sex: 1, age: 29, status: 1 },
          { line: 3, sex: 2, age: 1, status: null },
          { line: 4, sex: 1, age: 3, status: null },
        ],
      },
      { house: 3, tel: 1, heat: 2, pc: 0, persons: [{ line: 1, sex: 1, age: 60, status: 2 }] },
    ],
  },
];

function datOf(buildings: Building[]): string[] {
  const lines: string[] = [];
  for (const b of buildings) {
    lines.push(`1${b.ids}   ${b.roof}${b.water}${pad(b.hus, 3)}`);
    for (const h of b.households) {
      lines.push(`2${b.ids}${pad(h.house, 3)}${h.tel}${h.heat}${h.pc}`);
      for (const p of h.persons) lines.push(`3${b.ids}${pad(h.house, 3)}${pad(p.line, 2)}${p.sex}${pad(p.age, 3)}${p.status ?? ' '}`);
    }
  }
  return lines;
}

async function twoLevel(db: TestDatabase): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sds-two-level-'));
  dirs.push(dir);
  const t = await tempStore();
  try {
    await uploadDictionary(t.store, { source: readFileSync(fixture('two-level.text.dcf')), label: 'tl' });
    const r = await importCases(t.store, 'TWO_LEVEL_DICT', [writeDat(dir, 'two.dat', datOf(BUILDINGS))]);
    assert.deepEqual([r.total.inserted, r.total.failed], [2, 0], JSON.stringify(r.files[0]!.errors));
    await setTargetConfig(t.store, 'TWO_LEVEL_DICT', db.config);
    const s = await runBreakoutNow(t.store, { dictionary: 'TWO_LEVEL_DICT' });
    assert.equal(s.status, 'completed', JSON.stringify(s));
    if (s.status !== 'completed') return;
    assert.equal(s.result.total_cases, 2);
    assert.equal(s.result.warnings, 0);
    assert.deepEqual(s.result.tables_created, [
      'tl_cases',
      'tl_level_2',
      'tl_build_rec',
      'tl_house_rec',
      'tl_pop_recc',
      'tl_notes',
      'tl_cspro_jobs',
      'tl_value_sets',
      'tl_items',
    ]);

    const guid = (b: Building) => caseGuid('TWO_LEVEL_DICT', b.ids);
    const sorted = (rows: unknown[][]) => rows.map((x) => JSON.stringify(x)).sort();
    const num = (v: unknown) => (v === null ? null : Number(v));
    const q = await openQuery(db.config);
    try {
      const cases = await q.all('SELECT case_id, case_key, prov, dist, village, ea, build FROM tl_cases');
      assert.deepEqual(
        sorted(cases.map((c) => [c.case_id, c.case_key, num(c.prov), num(c.dist), num(c.village), num(c.ea), num(c.build)])),
        sorted(BUILDINGS.map((b) => [guid(b), b.ids, 1, 2, 3, 4, Number(b.ids.slice(9))])),
      );
      const level2 = await q.all('SELECT case_id, occ, house_number FROM tl_level_2');
      assert.deepEqual(
        sorted(level2.map((x) => [x.case_id, num(x.occ), num(x.house_number)])),
        sorted(BUILDINGS.flatMap((b) => b.households.map((h, i) => [guid(b), i + 1, h.house]))),
      );
      const build = await q.all('SELECT case_id, occ, roof, water, number_of_hus FROM tl_build_rec');
      assert.deepEqual(
        sorted(build.map((x) => [x.case_id, num(x.occ), num(x.roof), num(x.water), num(x.number_of_hus)])),
        sorted(BUILDINGS.map((b) => [guid(b), 1, b.roof, b.water, b.hus])),
      );
      const house = await q.all('SELECT case_id, level_2_occ, occ, telephone, heat, pc FROM tl_house_rec');
      assert.deepEqual(
        sorted(house.map((x) => [x.case_id, num(x.level_2_occ), num(x.occ), num(x.telephone), num(x.heat), num(x.pc)])),
        sorted(BUILDINGS.flatMap((b) => b.households.map((h, i) => [guid(b), i + 1, 1, h.tel, h.heat, h.pc]))),
      );
      const pop = await q.all('SELECT case_id, level_2_occ, occ, line, sex, age, m_status FROM tl_pop_recc');
      const expected = BUILDINGS.flatMap((b) =>
        b.households.flatMap((h, i) => h.persons.map((p, k) => [guid(b), i + 1, k + 1, p.line, p.sex, p.age, p.status])),
      );
      assert.equal(expected.length, 11);
      assert.equal(pop.length, 11);
      assert.deepEqual(
        sorted(pop.map((x) => [x.case_id, num(x.level_2_occ), num(x.occ), num(x.line), num(x.sex), num(x.age), num(x.m_status)])),
        sorted(expected),
      );
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
  }
}

test('SQLite: two-level breakout, level and record rows with level_2_occ/occ', { timeout: 30_000 }, async () => {
  const db = createSqliteFile();
  databases.push(db);
  await twoLevel(db);
});

test('PostgreSQL: two-level breakout, level and record rows with level_2_occ/occ', { timeout: 30_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  await twoLevel(db);
});
