/**
 * Id items in every record table, rows in case-key order, whole numbers as integers
 * (docs/export.md#id-items, #row-order, #integer-columns): a two-level dictionary
 * (fixtures/cspro/two-level.text.dcf) whose cases are imported out of key order, exported with
 * `sds export` in every format and read back with Python's csv module, pandas, GNU PSPP and DuckDB.
 * Runs on the store of the test home (SQLite, or PostgreSQL with SDS_TEST_STORE=postgresql).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { writeDat } from '../../helpers/breakout-helpers.js';
import { EXT, gotCell, readBack, type Format } from '../../helpers/export-compare.js';
import { readStata } from '../../helpers/read-stata.js';
import { readSpss } from '../../helpers/read-spss.js';
import { readParquet } from '../../helpers/read-parquet.js';

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

interface Building {
  /** PROV(2) DIST(2) VILLAGE(2) EA(3) BUILD(3): the case key. */
  ids: string;
  /** Per household: its house number and the line numbers of its persons. */
  households: { house: number; lines: number[] }[];
}

// Keys differ in every id item; the file lists them out of key order, so neither the import's
// order nor the GUIDs' is the case-key order.
const BUILDINGS: Building[] = [
  { ids: '020101001002', households: [{ house: 4, lines: [1, 2] }] },
  {
    ids: '010203004006',
    households: [
      { house: 1, lines: [1] },
      { house: 3, lines: [1, 2, 3] },
    ],
  },
  { ids: '030101002001', households: [{ house: 2, lines: [1] }] },
  {
    ids: '010203004005',
    households: [
      { house: 1, lines: [1, 2] },
      { house: 2, lines: [1] },
      { house: 7, lines: [1, 2] },
    ],
  },
  { ids: '010101001001', households: [{ house: 9, lines: [1] }] },
  { ids: '020101001001', households: [{ house: 5, lines: [1, 2, 3] }] },
];
const IDS_LEVEL_1 = ['prov', 'dist', 'village', 'ea', 'build'];
const ID_LABELS = ['province', 'district', 'village', 'enumeration area', 'building number', 'House number'];

function datOf(buildings: Building[]): string[] {
  const lines: string[] = [];
  for (const b of buildings) {
    lines.push(`1${b.ids}   21002`);
    for (const h of b.households) {
      lines.push(`2${b.ids}${pad(h.house, 3)}121`);
      for (const l of h.lines) lines.push(`3${b.ids}${pad(h.house, 3)}${pad(l, 2)}1030 `);
    }
  }
  return lines;
}

const idValues = (ids: string) => [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4, 6), ids.slice(6, 9), ids.slice(9, 12)].map(Number);
const inKeyOrder = [...BUILDINGS].sort((a, b) => (a.ids < b.ids ? -1 : a.ids > b.ids ? 1 : 0));

/** Person rows as the export must hold them, in order: level-1 ids, house number, level_2_occ, occ, line. */
const PERSONS = inKeyOrder.flatMap((b) =>
  b.households.flatMap((h, i) => h.lines.map((line, k) => [...idValues(b.ids), h.house, i + 1, k + 1, line])),
);

/** Cells as numbers (every column read here is a whole number). */
function numbers(format: Format, rows: unknown[][], columns: number[]): number[][] {
  return rows.map((r) => columns.map((i) => Number(gotCell(format, 'integer', r[i]))));
}

describe('sds export: id items in every record table, case-key order, integers', async () => {
  const home = await tempHome();
  after(() => home.cleanup());

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('two-level.text.dcf'), '--label', 'tl']);
    await ok(home.root, ['cases', 'import', 'TWO_LEVEL_DICT', writeDat(home.root, 'two.dat', datOf(BUILDINGS)), '-q']);
  });

  for (const format of ['csv', 'stata', 'spss', 'parquet'] as const) {
    test(`${format}: record and level tables hold the ids of their case and node after case_id, rows in case-key then occurrence order`, async () => {
      const out = join(home.root, `ids-${format}`);
      await ok(home.root, ['export', 'TWO_LEVEL_DICT', '--format', format, '--out', out]);
      const file = (t: string) => join(out, `tl_${t}.${EXT[format]}`);

      const persons = await readBack(format, file('pop_recc'));
      const names = persons.columns.map((c) => c.name);
      assert.deepEqual(names.slice(0, 10), ['case_id', ...IDS_LEVEL_1, 'house_number', 'level_2_occ', 'occ', 'line']);
      assert.deepEqual(
        numbers(format, persons.rows, [1, 2, 3, 4, 5, 6, 7, 8, 9]),
        PERSONS,
        'ids of the case and household on every person, in case-key order then level_2_occ, occ',
      );
      if (format !== 'csv') {
        assert.deepEqual(
          persons.columns.slice(1, 7).map((c) => c.label),
          ID_LABELS,
          'the id items keep their labels',
        );
      }

      const houses = await readBack(format, file('house_rec'));
      assert.deepEqual(
        houses.columns.slice(0, 9).map((c) => c.name),
        ['case_id', ...IDS_LEVEL_1, 'house_number', 'level_2_occ', 'occ'],
      );
      assert.deepEqual(
        numbers(format, houses.rows, [1, 2, 3, 4, 5, 6]),
        inKeyOrder.flatMap((b) => b.households.map((h) => [...idValues(b.ids), h.house])),
      );
      const buildings = await readBack(format, file('build_rec'));
      assert.deepEqual(
        buildings.columns.slice(0, 7).map((c) => c.name),
        ['case_id', ...IDS_LEVEL_1, 'occ'],
      );
      assert.deepEqual(
        numbers(format, buildings.rows, [1, 2, 3, 4, 5]),
        inKeyOrder.map((b) => idValues(b.ids)),
      );
      // A level table gets the ids of the levels above it; its own follow occ as before.
      const level2 = await readBack(format, file('level_2'));
      assert.deepEqual(
        level2.columns.map((c) => c.name),
        ['case_id', ...IDS_LEVEL_1, 'occ', 'house_number'],
      );

      const cases = await readBack(format, file('cases'));
      const keyCol = cases.columns.findIndex((c) => c.name === 'case_key');
      assert.deepEqual(
        cases.rows.map((r) => String(r[keyCol])),
        inKeyOrder.map((b) => b.ids),
        'cases in case-key order',
      );
      // The person's case_id is its case's: the ids were taken from the right case.
      const caseOf = new Map(cases.rows.map((r) => [String(r[0]), String(r[keyCol])]));
      for (const r of persons.rows) {
        const key = caseOf.get(String(r[0]))!;
        assert.deepEqual(numbers(format, [r], [1, 2, 3, 4, 5])[0], idValues(key));
      }
    });
  }

  for (const format of ['csv', 'parquet'] as const) {
    test(`${format} --no-ids: the record tables as the breakout has them, the cases table keeps its ids`, async () => {
      const out = join(home.root, `noids-${format}`);
      await ok(home.root, ['export', 'TWO_LEVEL_DICT', '--format', format, '--out', out, '--no-ids']);
      const persons = await readBack(format, join(out, `tl_pop_recc.${EXT[format]}`));
      assert.deepEqual(
        persons.columns.slice(0, 4).map((c) => c.name),
        ['case_id', 'level_2_occ', 'occ', 'line'],
      );
      assert.deepEqual(
        numbers(format, persons.rows, [1, 2, 3]),
        PERSONS.map((p) => p.slice(6)),
        'still in case-key order',
      );
      const level2 = await readBack(format, join(out, `tl_level_2.${EXT[format]}`));
      assert.deepEqual(
        level2.columns.map((c) => c.name),
        ['case_id', 'occ', 'house_number'],
      );
      const cases = await readBack(format, join(out, `tl_cases.${EXT[format]}`));
      assert.deepEqual(
        cases.columns.slice(0, 8).map((c) => c.name),
        ['case_id', 'case_key', 'case_label', ...IDS_LEVEL_1],
      );
    });
  }

  test('codebook: the id columns of a record table are those of the cases table, with labels', async () => {
    const out = join(home.root, 'ids-codebook');
    await ok(home.root, ['export', 'TWO_LEVEL_DICT', '--format', 'csv', '--out', out]);
    const { readCodebook } = await import('../../helpers/export-readback.js');
    const codebook = readCodebook(join(out, 'codebook.csv'));
    const cols = (table: string) =>
      codebook.filter((r) => r.kind === 'column' && r.table === table).map((r) => [r.name, r.source, r.item, r.label, r.type]);
    assert.deepEqual(cols('tl_pop_recc').slice(1, 6), cols('tl_cases').slice(3, 8));
    assert.deepEqual(cols('tl_pop_recc')[6], ['house_number', 'house_number', 'HOUSE_NUMBER', 'House number', 'integer']);
  });

  test('integers stay integers: revision and occurrences are long in Stata, F numbers in SPSS, INT64/INT32 in Parquet', async () => {
    const out = join(home.root, 'ints');
    for (const format of ['stata', 'spss', 'parquet'] as const) {
      await ok(home.root, ['export', 'TWO_LEVEL_DICT', '--format', format, '--out', join(out, format), '--record', 'POP_RECC']);
    }
    const stata = readStata(join(out, 'stata', 'tl_cases.dta'));
    const stataType = (name: string) => stata.columns.find((c) => c.name === name)!.type;
    assert.equal(stataType('revision'), 'l', 'revision is a long, not a double');
    const revCol = stata.columns.findIndex((c) => c.name === 'revision');
    for (const r of stata.rows) assert.ok(Number.isInteger(r[revCol]), `revision ${String(r[revCol])}`);
    const stataPersons = readStata(join(out, 'stata', 'tl_pop_recc.dta'));
    assert.equal(stataPersons.columns.find((c) => c.name === 'occ')!.type, 'l');
    assert.equal(stataPersons.columns.find((c) => c.name === 'level_2_occ')!.type, 'l');

    const spss = readSpss(join(out, 'spss', 'tl_cases.sav'));
    assert.equal(spss.columns.find((c) => c.name === 'revision')!.format, 'F18.0', 'revision is a number, not a string');
    const spssPersons = readSpss(join(out, 'spss', 'tl_pop_recc.sav'));
    assert.equal(spssPersons.columns.find((c) => c.name === 'prov')!.format, 'F2.0');

    const pq = await readParquet(join(out, 'parquet', 'tl_cases.parquet'));
    assert.equal(pq.columns.find((c) => c.name === 'revision')!.physical, 'INT64');
    const pqPersons = await readParquet(join(out, 'parquet', 'tl_pop_recc.parquet'));
    assert.equal(pqPersons.columns.find((c) => c.name === 'occ')!.physical, 'INT32');
    assert.equal(pqPersons.columns.find((c) => c.name === 'prov')!.physical, 'INT32');
  });
});
