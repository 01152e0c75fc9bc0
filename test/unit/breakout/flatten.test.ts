import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planBreakout } from '../../../src/breakout/plan.js';
import { createEmittingFlattener, createFlattener, type FlattenInput } from '../../../src/breakout/flatten.js';
import type { BreakoutPlan, Row } from '../../../src/breakout/plan-model.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { LevelObject } from '../../../src/cspro/case/model.js';
import { AppError } from '../../../src/shared/errors.js';
import { shortenIdentifier } from '../../../src/breakout/shorten-identifier.js';
import { level, num, record, surveyDict, twoLevelDict } from './plan-helpers.js';

const A = '5a1b0c2d-0000-4000-8000-000000000001';
const B = '5a1b0c2d-0000-4000-8000-000000000002';
const T_MOD = '2024-03-01T10:00:00.000Z';
const T_RUN = '2024-03-02T08:30:00.000Z';

function input(id: string, level1: LevelObject, extra: Partial<FlattenInput> = {}): FlattenInput {
  return {
    id,
    caseids: ' 10023',
    label: 'Blue house',
    verified: false,
    revision: 42,
    modifiedTime: T_MOD,
    breakoutTime: T_RUN,
    level1,
    notes: [],
    ...extra,
  };
}

/** `inputs` through createEmittingFlattener, each row copied as it is emitted, grouped like createFlattener's. */
function emitted(plan: BreakoutPlan, dict: Dictionary, inputs: FlattenInput[]) {
  const each = createEmittingFlattener(plan, dict);
  return inputs.map((one) => {
    const rows: Row[][] = plan.tables.map(() => []);
    const warnings = each(one, (t, row) => rows[t]!.push([...row]));
    return { rows, warnings };
  });
}

const photo = { length: 2048, signature: '0cc175b9c0f1b6a831c399e269772661', metadata: { mime: 'image/jpeg' } };

describe('flatten: one-level case', () => {
  const dict = surveyDict();
  // P_AGE's value set maps MISSING to 999: the case JSON then carries 999 (docs/cspro-formats.md#the-case-model).
  dict.levels[0]!.records[1]!.items[0]!.valueSets = [
    { name: 'P_AGE_VS', labels: ['Age'], values: [{ labels: ['Missing'], pairs: [{ from: '999' }], special: 'MISSING' }] },
  ];
  const plan = planBreakout(dict, 'Survey', { maxIdentifierLength: 63 });
  const flatten = createFlattener(plan, dict);

  const caseA: LevelObject = {
    id: { PROV: 1, HHNO: 23 },
    HOUSING: { H_NAME: 'Blue house', H_AREA: 12.5, H_ROOMS: [2, '', 1] },
    PERSON: [
      { P_AGE: 34, P_DOB: '041990', P_DOB_M: 4, P_DOB_Y: 1990, P_CHILD: [3, 1], P_CHILD_SEX: [1, 2], P_PHOTO: photo as never },
      { P_AGE: 999, P_CHILD: ['', 5], P_CHILD_SEX: ['', 2] },
      { P_AGE: 'MISSING', P_DOB: '', P_DOB_Y: 2017 },
    ],
  };
  const caseB: LevelObject = {
    id: { PROV: 2, HHNO: 1 },
    PERSON: [{ P_AGE: 70 }, { P_AGE: 68 }],
  };

  it('writes the case, record rows with per-case occ, values and warnings', () => {
    const notes = [
      {
        content: 'Age checked with the birth certificate',
        field: { name: 'P_AGE', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 },
        operatorId: 'op7',
        modifiedTime: '2024-03-01T09:15:00Z',
      },
      {
        content: 'Roof seen from outside',
        field: { name: 'H_ROOMS', levelKey: '', recordOccurrence: 1, itemOccurrence: 2, subitemOccurrence: 0 },
        operatorId: 'op7',
        modifiedTime: '2024-03-01T11:15:00.500+02:00',
      },
    ];
    const flat = flatten(input(A, caseA, { notes, verified: true }));
    const photoText = JSON.stringify(photo);
    assert.deepEqual(flat.rows, [
      // survey_cases: case_id, case_key, case_label, prov, hhno, verified, revision, modified_time, breakout_time
      [[A, ' 10023', 'Blue house', 1, 23, true, 42, T_MOD, T_RUN]],
      // survey_housing: case_id, occ, h_name, h_area, h_rooms_1..3 (a blank inside the array is NULL)
      [[A, 1, 'Blue house', 12.5, 2, null, 1]],
      // survey_person: case_id, occ, p_age, p_dob, p_dob_m, p_dob_y, p_child_1, p_child_2, p_child_sex_1, p_child_sex_2, p_photo
      [
        [A, 1, 34, '041990', 4, 1990, 3, 1, 1, 2, photoText],
        [A, 2, 999, null, null, null, null, 5, null, 2, null],
        [A, 3, null, null, null, 2017, null, null, null, null, null],
      ],
      // survey_notes: case_id, note_number, field_name, level_key, occurrences ×3, content, operator_id, modified_time
      [
        [A, 1, 'P_AGE', '', 1, 0, 0, 'Age checked with the birth certificate', 'op7', '2024-03-01T09:15:00.000Z'],
        [A, 2, 'H_ROOMS', '', 1, 2, 0, 'Roof seen from outside', 'op7', '2024-03-01T09:15:00.500Z'],
      ],
      // survey_cspro_jobs: never written by the flattener
      [],
      // survey_value_sets, survey_items: written from the dictionary, never by the flattener
      [],
      [],
    ]);
    assert.deepEqual(flat.warnings, [
      { case: A, record: 'PERSON', item: 'P_AGE', occurrence: 3, value: 'MISSING', reason: 'unmapped special value' },
    ]);
  });

  it('emits row by row the rows and warnings it collects, nothing left from an earlier case', () => {
    const note = {
      content: 'Seen',
      field: { name: 'P_AGE', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 },
      operatorId: 'op7',
      modifiedTime: 'not a time',
    };
    const inputs = [input(A, caseA, { notes: [note, note] }), input(B, caseB), input(A, { id: {} } as LevelObject), input(B, caseA)];
    const collected = inputs.map((one) => flatten(one));
    assert.ok(collected[0]!.warnings.length > 0 && collected[0]!.rows.some((r) => r.length > 1));
    assert.deepEqual(emitted(plan, dict, inputs), collected);
  });

  it('starts occ at 1 again for the next case, and writes absent records as no rows', () => {
    flatten(input(A, caseA));
    const flat = flatten(input(B, caseB, { label: '', caseids: ' 20001', revision: 43 }));
    assert.deepEqual(flat.rows, [
      [[B, ' 20001', null, 2, 1, false, 43, T_MOD, T_RUN]],
      [],
      [
        [B, 1, 70, null, null, null, null, null, null, null, null],
        [B, 2, 68, null, null, null, null, null, null, null, null],
      ],
      [],
      [],
      [],
      [],
    ]);
    assert.deepEqual(flat.warnings, []);
  });

  it('row widths equal the plan column counts', () => {
    const flat = flatten(input(A, caseA));
    flat.rows.forEach((rows, i) => {
      for (const row of rows) assert.equal(row.length, plan.tables[i]!.columns.length, plan.tables[i]!.name);
    });
  });

  it('writes all-NULL ids when the id object is missing', () => {
    const flat = flatten(input(A, { HOUSING: { H_AREA: 1 } } as unknown as LevelObject));
    assert.deepEqual(flat.rows[0], [[A, ' 10023', 'Blue house', null, null, false, 42, T_MOD, T_RUN]]);
    assert.deepEqual(flat.rows[1], [[A, 1, null, 1, null, null, null]]);
  });
});

describe('flatten: multi-level case', () => {
  const dict = twoLevelDict();
  const plan = planBreakout(dict, 'bld', { maxIdentifierLength: 63 });
  const flatten = createFlattener(plan, dict);

  it('writes level rows and level-2 record rows with their level path', () => {
    const level1 = {
      id: { BLD: 7 },
      BUILD_REC: { ROOF: 2 },
      'level-2': [
        {
          id: { HU: 1 },
          HOUSE_REC: { PC: 1 },
          POP_REC: [
            { LINE: 1, AGE: 30 },
            { LINE: 2, AGE: 'REFUSED' },
          ],
        },
        { id: { HU: 2 }, POP_REC: [{ LINE: 1, AGE: 5 }] },
        { id: { HU: 3 } },
      ],
    } as unknown as LevelObject;
    const flat = flatten(input(A, level1));
    // Tables: cases, level_2, build_rec, house_rec, pop_rec, notes, jobs, value_sets, items.
    assert.deepEqual(flat.rows, [
      [[A, ' 10023', 'Blue house', 7, false, 42, T_MOD, T_RUN]],
      // bld_level_2: case_id, occ, hu
      [
        [A, 1, 1],
        [A, 2, 2],
        [A, 3, 3],
      ],
      [[A, 1, 2]],
      // bld_house_rec: case_id, level_2_occ, occ, pc
      [[A, 1, 1, 1]],
      // bld_pop_rec: case_id, level_2_occ, occ, line, age — occ restarts in each household
      [
        [A, 1, 1, 1, 30],
        [A, 1, 2, 2, null],
        [A, 2, 1, 1, 5],
      ],
      [],
      [],
      [],
      [],
    ]);
    assert.deepEqual(flat.warnings, [
      { case: A, record: 'POP_REC', item: 'AGE', occurrence: 2, levelPath: [1], value: 'REFUSED', reason: 'unmapped special value' },
    ]);
  });

  it('emits row by row the rows of every level as it collects them', () => {
    const level1 = {
      id: { BLD: 7 },
      BUILD_REC: { ROOF: 2 },
      'level-2': [
        {
          id: { HU: 1 },
          HOUSE_REC: { PC: 1 },
          POP_REC: [
            { LINE: 1, AGE: 30 },
            { LINE: 2, AGE: 'REFUSED' },
          ],
        },
        { id: { HU: 2 }, POP_REC: [{ LINE: 1, AGE: 5 }] },
      ],
    } as unknown as LevelObject;
    const other = { id: { BLD: 8 }, 'level-2': [{ id: {} }] } as unknown as LevelObject;
    const inputs = [input(A, level1), input(B, other), input(A, level1)];
    assert.deepEqual(
      emitted(plan, dict, inputs),
      inputs.map((one) => flatten(one)),
    );
  });

  it('handles three levels: the full path on level-3 rows', () => {
    const dict3 = twoLevelDict();
    dict3.levels.push(level('PERSON_LEVEL', [num('PID', 2)], [record('PERSON_REC', 2, [num('SEX', 1)])]));
    const plan3 = planBreakout(dict3, 'three', { maxIdentifierLength: 63 });
    const level1 = {
      id: { BLD: 1 },
      'level-2': [
        { id: { HU: 1 } },
        {
          id: { HU: 2 },
          'level-3': [
            { id: { PID: 10 }, PERSON_REC: [{ SEX: 1 }, { SEX: 'x' }] },
            { id: { PID: 11 }, PERSON_REC: { SEX: 2 } },
          ],
        },
      ],
    } as unknown as LevelObject;
    const flat = createFlattener(plan3, dict3)(input(B, level1));
    const byName = (name: string) => flat.rows[plan3.tables.findIndex((t) => t.name === name)];
    assert.deepEqual(byName('three_level_2'), [
      [B, 1, 1],
      [B, 2, 2],
    ]);
    // three_level_3: case_id, level_2_occ, occ, pid
    assert.deepEqual(byName('three_level_3'), [
      [B, 2, 1, 10],
      [B, 2, 2, 11],
    ]);
    // three_person_rec: case_id, level_2_occ, level_3_occ, occ, sex
    assert.deepEqual(byName('three_person_rec'), [
      [B, 2, 1, 1, 1],
      [B, 2, 1, 2, null],
      [B, 2, 2, 1, 2],
    ]);
    assert.deepEqual(flat.warnings, [
      { case: B, record: 'PERSON_REC', item: 'SEX', occurrence: 2, levelPath: [2, 1], value: 'x', reason: 'not a number' },
    ]);
  });
});

describe('flatten: cases that cannot be broken out', () => {
  const dict = surveyDict();
  const plan = planBreakout(dict, 'Survey', { maxIdentifierLength: 63 });
  const flatten = createFlattener(plan, dict);
  const isBrk003 = (e: unknown) => e instanceof AppError && e.code === 'BRK-003' && e.details.case === A;

  it('throws BRK-003 when level-1 is not an object', () => {
    assert.throws(() => flatten(input(A, 'oops' as unknown as LevelObject)), isBrk003);
    assert.throws(() => flatten(input(A, [] as unknown as LevelObject)), isBrk003);
  });

  it('throws BRK-003 for an unreadable case time', () => {
    assert.throws(() => flatten(input(A, { id: {} }, { modifiedTime: 'yesterday' })), isBrk003);
  });

  it('emits no row of a case it throws for', () => {
    const each = createEmittingFlattener(plan, dict);
    const rows: Row[] = [];
    assert.throws(() => each(input(A, 'oops' as unknown as LevelObject), (_t, row) => rows.push(row)), isBrk003);
    assert.throws(() => each(input(A, { id: {} }, { breakoutTime: 'later' }), (_t, row) => rows.push(row)), isBrk003);
    assert.deepEqual(rows, []);
  });
});

describe('createFlattener', () => {
  it('refuses a plan made from another dictionary', () => {
    const plan = planBreakout(surveyDict(), 'Survey', { maxIdentifierLength: 63 });
    assert.throws(
      () => createFlattener(plan, twoLevelDict()),
      (e: unknown) => e instanceof AppError && e.code === 'INTERNAL',
    );
    const changed = surveyDict();
    changed.levels[0]!.records[0]!.items[2]!.occurrences = 4;
    assert.throws(
      () => createFlattener(plan, changed),
      (e: unknown) => e instanceof AppError && e.code === 'INTERNAL',
    );
  });

  it('works with shortened names (positions, not names, drive the rows)', () => {
    const dict = surveyDict();
    const plan = planBreakout(dict, 'Survey', { maxIdentifierLength: 16 });
    assert.deepEqual(
      plan.tables.map((t) => t.name),
      [
        'survey_cases',
        'survey_housing',
        'survey_person',
        'survey_notes',
        shortenIdentifier('survey_cspro_jobs', 16),
        shortenIdentifier('survey_value_sets', 16),
        'survey_items',
      ],
    );
    const flat = createFlattener(plan, dict)(input(A, { id: { PROV: 3, HHNO: 4 }, HOUSING: { H_ROOMS: [1, 2, 3] } }));
    assert.deepEqual(flat.rows[1], [[A, 1, null, null, 1, 2, 3]]);
  });
});
