import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planBreakout } from '../../../src/breakout/plan.js';
import type { BreakoutPlan, ColumnPlan, ColumnType } from '../../../src/breakout/plan-model.js';
import { AppError } from '../../../src/shared/errors.js';
import { alpha, dictionary, item, level, num, record, surveyDict, twoLevelDict } from './plan-helpers.js';

const limits = { maxIdentifierLength: 63 };

const int = (digits: number): ColumnType => ({ kind: 'integer', digits });
const col = (name: string, type: ColumnType, nullable = true): ColumnPlan => ({ name, type, nullable });
const key = (name: string, type: ColumnType): ColumnPlan => col(name, type, false);
const GUID: ColumnType = { kind: 'guid' };
const TEXT: ColumnType = { kind: 'text' };
const TS: ColumnType = { kind: 'timestamp' };

function mainColumns(ids: ColumnPlan[]): ColumnPlan[] {
  return [
    key('case_id', GUID),
    key('case_key', TEXT),
    col('case_label', TEXT),
    ...ids,
    key('verified', { kind: 'boolean' }),
    key('revision', int(18)),
    key('modified_time', TS),
    key('breakout_time', TS),
  ];
}

function notesTable(p: string) {
  return {
    name: `${p}_notes`,
    kind: 'notes' as const,
    columns: [
      key('case_id', GUID),
      key('note_number', int(9)),
      key('field_name', TEXT),
      key('level_key', TEXT),
      key('record_occurrence', int(9)),
      key('item_occurrence', int(9)),
      key('subitem_occurrence', int(9)),
      key('content', TEXT),
      key('operator_id', TEXT),
      col('modified_time', TS),
    ],
    primaryKey: ['case_id', 'note_number'],
  };
}

function jobsTable(p: string) {
  return {
    name: `${p}_cspro_jobs`,
    kind: 'jobs' as const,
    columns: [
      key('job_id', { kind: 'varchar', length: 64 }),
      key('started_time', TS),
      col('completed_time', TS),
      key('cases_processed', int(18)),
      key('status', { kind: 'varchar', length: 16 }),
    ],
    primaryKey: ['job_id'],
  };
}

const NAME: ColumnType = { kind: 'varchar', length: 128 };
const CODE: ColumnType = { kind: 'decimal', precision: 28, scale: 9 };

/** The label tables, as docs/breakout.md#value-sets-and-item-labels describes them. */
function labelTables(p: string) {
  return [
    {
      name: `${p}_value_sets`,
      kind: 'value_sets' as const,
      columns: [
        key('item_name', NAME),
        key('value_set_order', int(9)),
        key('value_order', int(9)),
        key('pair_order', int(9)),
        key('value_set_name', NAME),
        key('value_set_label', TEXT),
        key('value_from', TEXT),
        col('value_to', TEXT),
        col('value_from_num', CODE),
        col('value_to_num', CODE),
        key('label', TEXT),
        col('special', { kind: 'varchar', length: 16 }),
      ],
      primaryKey: ['item_name', 'value_set_order', 'value_order', 'pair_order'],
    },
    {
      name: `${p}_items`,
      kind: 'items' as const,
      columns: [
        key('table_name', NAME),
        key('column_name', NAME),
        key('item_name', NAME),
        key('item_label', TEXT),
        col('record_name', NAME),
        key('content_type', { kind: 'varchar', length: 16 }),
        key('length', int(9)),
        key('decimals', int(9)),
        col('occurrence', int(9)),
        col('occurrence_label', TEXT),
        col('value_set_name', NAME),
        key('labels_hash', { kind: 'varchar', length: 64 }),
      ],
      primaryKey: ['table_name', 'column_name'],
    },
  ];
}

describe('planBreakout: one-level dictionary', () => {
  it('plans every table, column, type and key', () => {
    const plan = planBreakout(surveyDict(), 'Survey', limits);
    const expected: BreakoutPlan = {
      dictionary: 'SURVEY_DICT',
      prefix: 'survey',
      tables: [
        {
          name: 'survey_cases',
          kind: 'main',
          columns: mainColumns([col('prov', int(2)), col('hhno', int(4))]),
          primaryKey: ['case_id'],
        },
        {
          name: 'survey_housing',
          kind: 'record',
          level: 1,
          record: 'HOUSING',
          columns: [
            key('case_id', GUID),
            key('occ', int(9)),
            col('h_name', { kind: 'varchar', length: 20 }),
            col('h_area', { kind: 'decimal', precision: 5, scale: 1 }),
            col('h_rooms_1', int(1)),
            col('h_rooms_2', int(1)),
            col('h_rooms_3', int(1)),
          ],
          primaryKey: ['case_id', 'occ'],
        },
        {
          name: 'survey_person',
          kind: 'record',
          level: 1,
          record: 'PERSON',
          columns: [
            key('case_id', GUID),
            key('occ', int(9)),
            col('p_age', int(3)),
            col('p_dob', { kind: 'varchar', length: 6 }),
            col('p_dob_m', int(2)),
            col('p_dob_y', int(4)),
            col('p_child_1', int(3)),
            col('p_child_2', int(3)),
            // A subitem of a repeating parent repeats with it (own × parent occurrences).
            col('p_child_sex_1', int(1)),
            col('p_child_sex_2', int(1)),
            col('p_photo', TEXT),
          ],
          primaryKey: ['case_id', 'occ'],
        },
        notesTable('survey'),
        jobsTable('survey'),
        ...labelTables('survey'),
      ],
      // Pinned: a change here means every existing target of every dictionary gets rebuilt.
      structureHash: '572ebb9ebb05b31aacb3cc659c552b6d810399c9dd88c74c50c3ec2d4a834f5a',
    };
    assert.deepEqual(plan, expected);
  });
});

describe('planBreakout: two-level dictionary', () => {
  it('adds the level table and level path columns', () => {
    const plan = planBreakout(twoLevelDict(), 'bld', limits);
    assert.deepEqual(plan.tables.slice(0, 5), [
      {
        name: 'bld_cases',
        kind: 'main',
        columns: mainColumns([col('bld', int(3))]),
        primaryKey: ['case_id'],
      },
      {
        name: 'bld_level_2',
        kind: 'level',
        level: 2,
        columns: [key('case_id', GUID), key('occ', int(9)), col('hu', int(2))],
        primaryKey: ['case_id', 'occ'],
      },
      {
        name: 'bld_build_rec',
        kind: 'record',
        level: 1,
        record: 'BUILD_REC',
        columns: [key('case_id', GUID), key('occ', int(9)), col('roof', int(1))],
        primaryKey: ['case_id', 'occ'],
      },
      {
        name: 'bld_house_rec',
        kind: 'record',
        level: 2,
        record: 'HOUSE_REC',
        columns: [key('case_id', GUID), key('level_2_occ', int(9)), key('occ', int(9)), col('pc', int(1))],
        primaryKey: ['case_id', 'level_2_occ', 'occ'],
      },
      {
        name: 'bld_pop_rec',
        kind: 'record',
        level: 2,
        record: 'POP_REC',
        columns: [key('case_id', GUID), key('level_2_occ', int(9)), key('occ', int(9)), col('line', int(2)), col('age', int(3))],
        primaryKey: ['case_id', 'level_2_occ', 'occ'],
      },
    ]);
    assert.deepEqual(plan.tables.slice(5), [notesTable('bld'), jobsTable('bld'), ...labelTables('bld')]);
  });

  it('gives a level-3 table its parent path and level-3 records the full path', () => {
    const dict = twoLevelDict();
    dict.levels.push(level('PERSON_LEVEL', [num('PID', 2)], [record('PERSON_REC', 1, [num('SEX', 1)])]));
    const plan = planBreakout(dict, 'three', limits);
    assert.deepEqual(
      plan.tables.map((t) => t.name),
      [
        'three_cases',
        'three_level_2',
        'three_level_3',
        'three_build_rec',
        'three_house_rec',
        'three_pop_rec',
        'three_person_rec',
        'three_notes',
        'three_cspro_jobs',
        'three_value_sets',
        'three_items',
      ],
    );
    const level3 = plan.tables[2]!;
    assert.deepEqual(
      level3.columns.map((c) => c.name),
      ['case_id', 'level_2_occ', 'occ', 'pid'],
    );
    assert.deepEqual(level3.primaryKey, ['case_id', 'level_2_occ', 'occ']);
    const person = plan.tables[6]!;
    assert.deepEqual(
      person.columns.map((c) => c.name),
      ['case_id', 'level_2_occ', 'level_3_occ', 'occ', 'sex'],
    );
    assert.deepEqual(person.primaryKey, ['case_id', 'level_2_occ', 'level_3_occ', 'occ']);
    assert.equal(person.level, 3);
  });
});

describe('planBreakout: types', () => {
  it('maps content types and lengths', () => {
    const dict = dictionary('T_DICT', [
      level(
        'Q',
        [alpha('CODE', 5)],
        [
          record('R', 1, [
            num('N15', 15),
            num('D', 10, { decimals: 6 }),
            alpha('A', 255),
            item('AUD', 'audio', 1),
            item('DOC', 'document', 1),
            item('GEO', 'geometry', 1),
          ]),
        ],
      ),
    ]);
    const plan = planBreakout(dict, 't', limits);
    assert.deepEqual(plan.tables[0]!.columns[3], col('code', { kind: 'varchar', length: 5 }));
    assert.deepEqual(plan.tables[1]!.columns.slice(2), [
      col('n15', int(15)),
      col('d', { kind: 'decimal', precision: 10, scale: 6 }),
      col('a', { kind: 'varchar', length: 255 }),
      col('aud', TEXT),
      col('doc', TEXT),
      col('geo', TEXT),
    ]);
  });

  it('repeats a repeating subitem of a single parent', () => {
    const dict = dictionary('T_DICT', [
      level('Q', [num('ID', 1)], [record('R', 1, [alpha('PARENT', 6), num('PART', 2, { subitem: true, occurrences: 3 })])]),
    ]);
    const names = planBreakout(dict, 't', limits).tables[1]!.columns.map((c) => c.name);
    assert.deepEqual(names, ['case_id', 'occ', 'parent', 'part_1', 'part_2', 'part_3']);
  });
});

describe('planBreakout: label and limits', () => {
  it('rejects a label that is not a table prefix', () => {
    for (const bad of ['1abc', 'a-b', '', 'a b', '_a']) {
      assert.throws(
        () => planBreakout(surveyDict(), bad, limits),
        (e: unknown) => e instanceof AppError && e.code === 'LABEL_INVALID',
      );
    }
  });

  it('rejects an identifier limit too small to shorten names', () => {
    assert.throws(
      () => planBreakout(surveyDict(), 'Survey', { maxIdentifierLength: 10 }),
      (e: unknown) => e instanceof AppError && e.code === 'USAGE',
    );
  });
});

describe('planBreakout: structureHash', () => {
  const hash = (dict = surveyDict(), label = 'Survey', limit = 63) =>
    planBreakout(dict, label, { maxIdentifierLength: limit }).structureHash;

  it('is stable for the same input', () => {
    assert.equal(hash(), hash());
  });

  it('ignores labels, notes and value sets', () => {
    const dict = surveyDict();
    dict.labels = ['Another title'];
    dict.note = 'a note';
    const person = dict.levels[0]!.records[1]!;
    person.labels = ['Persons'];
    person.items[0]!.labels = ['Age in years'];
    person.items[0]!.note = 'ask carefully';
    person.items[0]!.valueSets = [
      { name: 'P_AGE_VS', labels: ['ages'], values: [{ labels: ['Missing'], pairs: [{ from: '999' }], special: 'MISSING' }] },
    ];
    assert.equal(hash(dict), hash());
  });

  it('changes with lengths, decimals, occurrences, content types, names, levels, label and limit', () => {
    const base = hash();
    const variants: Array<(d: ReturnType<typeof surveyDict>) => void> = [
      (d) => (d.levels[0]!.records[1]!.items[0]!.length = 4),
      (d) => (d.levels[0]!.records[0]!.items[1]!.decimals = 2),
      (d) => (d.levels[0]!.records[0]!.items[2]!.occurrences = 4),
      (d) => (d.levels[0]!.records[0]!.items[0]!.contentType = 'numeric'),
      (d) => (d.levels[0]!.records[1]!.items[0]!.name = 'P_AGE2'),
      (d) => (d.levels[0]!.records[1]!.name = 'PERSONS'),
      (d) => d.levels.push(level('L2', [num('X', 1)], [])),
    ];
    const seen = new Set([base]);
    for (const change of variants) {
      const d = surveyDict();
      change(d);
      const h = hash(d);
      assert.ok(!seen.has(h), `variant ${seen.size} changed nothing`);
      seen.add(h);
    }
    assert.notEqual(hash(surveyDict(), 'Survey2'), base);
    assert.notEqual(hash(surveyDict(), 'Survey', 64), base);
  });
});
