/**
 * Real cases through the real readers and the flattener: the Popstan census .dat (4,872 cases)
 * and the CAPI household .csdb. Expected rows were checked by hand against the data lines.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { readDatFile } from '../../../src/cspro/case/dat-reader.js';
import { readCsdbFile } from '../../../src/cspro/case/csdb-reader.js';
import type { SyncCase } from '../../../src/cspro/case/model.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import { createFlattener, type FlattenInput } from '../../../src/breakout/flatten.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/cspro/${name}`, import.meta.url));
const dictOf = (name: string) => parseDictionary(readFileSync(fixture(name)), { file: name });
const TIME = '2024-05-01T12:00:00.000Z';

function inputOf(c: SyncCase): FlattenInput {
  return {
    id: c.id,
    caseids: c.caseids,
    label: c.label ?? '',
    verified: c.verified ?? false,
    revision: 7,
    modifiedTime: TIME,
    breakoutTime: TIME,
    level1: c['level-1'],
    notes: c.notes ?? [],
  };
}

async function readAll(reader: AsyncGenerator<{ ok: boolean; case?: SyncCase }>): Promise<SyncCase[]> {
  const out: SyncCase[] = [];
  for await (const r of reader) {
    assert.ok(r.ok && r.case);
    out.push(r.case);
  }
  return out;
}

describe('flatten fixture cases', () => {
  it('popstan-census.dat: every case, occ per case, exact rows of the first case', async () => {
    const dict: Dictionary = dictOf('popstan-census.json.dcf');
    const plan = planBreakout(dict, 'popstan', { maxIdentifierLength: 63 });
    const flatten = createFlattener(plan, dict);
    const cases = await readAll(readDatFile(fixture('popstan-census.dat'), dict));
    const counts = plan.tables.map(() => 0);
    let warnings = 0;
    let badOcc = 0;
    for (const c of cases) {
      const flat = flatten(inputOf(c));
      flat.rows.forEach((rows, i) => {
        counts[i]! += rows.length;
        for (const row of rows) if (row.length !== plan.tables[i]!.columns.length) assert.fail(`width of ${plan.tables[i]!.name}`);
      });
      warnings += flat.warnings.length;
      // Person rows of each case must be numbered 1..k whatever came before.
      flat.rows[1]!.forEach((row, k) => {
        if (row[1] !== k + 1 || row[0] !== c.id) badOcc++;
      });
    }
    // cases, person, housing, notes, jobs, value sets, items — 29,143 lines = 24,271 person + 4,872 housing.
    assert.deepEqual(counts, [4872, 24271, 4872, 0, 0, 0, 0]);
    assert.equal(warnings, 0);
    assert.equal(badOcc, 0);

    const first = flatten(inputOf(cases[0]!));
    const id = cases[0]!.id;
    // Lines: 1 01 01 030 001 1 021 024 1 | 01 1 2 19 5 1 01 01 2 11 1 1 _ _ 93 29 2 1 00 00 0 …
    assert.deepEqual(first.rows, [
      [[id, '010103000110210241', null, 1, 1, 30, 1, 1, 21, 24, 1, false, 7, TIME, TIME]],
      [
        [id, 1, 1, 1, 2, 19, 5, 1, 1, 1, 2, 11, 1, 1, null, null, 93, 9, 29, 2, 2, 1, 0, 0, 0],
        [id, 2, 2, 5, 2, 7, 5, 1, 1, 1, 1, 4, 9, null, null, null, null, null, null, null, null, null, null, null, null],
        [id, 3, 3, 5, 1, 4, 5, 1, 1, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
      ],
      [[id, 1, 1, 1, 2, 3, 2, 1, 0, 5, 2, 2, 1, 5, 3]],
      [],
      [],
      [],
      [],
    ]);
  });

  it('capi-household.csdb: alpha parent with subitems, decimals, a partial case', async () => {
    const dict = dictOf('capi-household.dcf');
    const plan = planBreakout(dict, 'hh', { maxIdentifierLength: 63 });
    const flatten = createFlattener(plan, dict);
    const cases = await readAll(readCsdbFile(fixture('capi-household.csdb'), dict));
    assert.equal(cases.length, 4);
    const flats = cases.map((c) => flatten(inputOf(c)));
    // cases, population, dwelling, metadata, notes, jobs, value sets, items per case
    assert.deepEqual(
      flats.map((f) => f.rows.map((r) => r.length)),
      [
        [1, 3, 1, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 0],
        [1, 2, 1, 1, 0, 0, 0, 0],
        [1, 1, 0, 1, 0, 0, 0, 0],
      ],
    );
    assert.deepEqual(
      flats.flatMap((f) => f.warnings),
      [],
    );
    const id = cases[0]!.id;
    assert.deepEqual(flats[0]!.rows[1], [
      [id, 1, 1, 'LINCOLN DAVIS', 1, 1, '041965', 4, 1965, 56, 1, 1, 1, 5, 1, 2, 33, null, null, null, null, null, 1],
      [id, 2, 1, 'NORA DAVIS', 2, 2, '021970', 2, 1970, 51, 1, 1, 1, 5, 1, 2, 28, null, null, null, null, null, 1],
      [id, 3, 1, 'LILY DAVIS', 3, 2, '031999', 3, 1999, 22, 1, 1, 1, 4, 2, 1, null, 0, null, null, null, null, 2],
    ]);
    assert.deepEqual(flats[0]!.rows[3], [
      [
        id,
        1,
        'af00f054-718e-4a7d-a0db-ce390e83ea70',
        'c732d156-c67f-44b2-9566-803dbb4c3e0c',
        1560777888,
        1638898619,
        20211207123419,
        2,
        38.922705,
        -77.036166,
        5.4,
        5.4,
        0,
        92455,
        1,
        1,
        1,
        1,
      ],
    ]);
    assert.deepEqual(flats[0]!.rows[0], [[id, '1109037A0001', null, 11, 9, 37, 'A', 1, false, 7, TIME, TIME]]);
  });
});
