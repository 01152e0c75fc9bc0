/**
 * Plans of the real dictionaries in fixtures/cspro. Columns are written compactly as
 * `name:type` (`i<digits>` integer, `d<p>,<s>` decimal, `v<n>` varchar, else the kind) with `!`
 * for NOT NULL; every list below was checked by hand against the dictionary.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import type { BreakoutPlan, ColumnType, TablePlan } from '../../../src/breakout/plan-model.js';

const FIXTURES = new URL('../../../fixtures/cspro/', import.meta.url);

function planOf(file: string, label: string, limit = 63): BreakoutPlan {
  const dict = parseDictionary(readFileSync(new URL(file, FIXTURES)), { file });
  return planBreakout(dict, label, { maxIdentifierLength: limit });
}

function typeText(t: ColumnType): string {
  switch (t.kind) {
    case 'integer':
      return `i${t.digits}`;
    case 'decimal':
      return `d${t.precision},${t.scale}`;
    case 'varchar':
      return `v${t.length}`;
    default:
      return t.kind;
  }
}

const columns = (t: TablePlan) => t.columns.map((c) => `${c.name}:${typeText(c.type)}${c.nullable ? '' : '!'}`);
const table = (plan: BreakoutPlan, name: string) => {
  const t = plan.tables.find((x) => x.name === name);
  assert.ok(t, `no table ${name}`);
  return t;
};

const MAIN_HEAD = ['case_id:guid!', 'case_key:text!', 'case_label:text'];
const MAIN_TAIL = ['verified:boolean!', 'revision:i18!', 'modified_time:timestamp!', 'breakout_time:timestamp!'];
const NOTES = [
  'case_id:guid!',
  'note_number:i9!',
  'field_name:text!',
  'level_key:text!',
  'record_occurrence:i9!',
  'item_occurrence:i9!',
  'subitem_occurrence:i9!',
  'content:text!',
  'operator_id:text!',
  'modified_time:timestamp',
];
const JOBS = ['job_id:v64!', 'started_time:timestamp!', 'completed_time:timestamp', 'cases_processed:i18!', 'status:v16!'];
const L1 = ['case_id:guid!', 'occ:i9!'];

describe('plans of the fixture dictionaries', () => {
  it('popstan-census.json.dcf', () => {
    const plan = planOf('popstan-census.json.dcf', 'popstan');
    assert.equal(plan.dictionary, 'CEN2000');
    assert.deepEqual(
      plan.tables.map((t) => [t.name, t.kind, t.level, t.record]),
      [
        ['popstan_cases', 'main', undefined, undefined],
        ['popstan_person', 'record', 1, 'PERSON'],
        ['popstan_housing', 'record', 1, 'HOUSING'],
        ['popstan_notes', 'notes', undefined, undefined],
        ['popstan_cspro_jobs', 'jobs', undefined, undefined],
        ['popstan_value_sets', 'value_sets', undefined, undefined],
        ['popstan_items', 'items', undefined, undefined],
      ],
    );
    assert.deepEqual(columns(plan.tables[0]!), [
      ...MAIN_HEAD,
      ...['province:i2', 'district:i2', 'village:i3', 'ea:i3', 'ur:i1', 'building:i3', 'hu:i3', 'hh:i1'],
      ...MAIN_TAIL,
    ]);
    assert.deepEqual(columns(plan.tables[1]!), [
      ...L1,
      ...['line:i2', 'p02_rel:i1', 'p03_sex:i1', 'p04_age:i2', 'p05_ms:i1', 'p06_mother:i1', 'p07_birth:i2', 'p08_res95:i2'],
      ...['p09_attend:i1', 'p10_high_gr:i2', 'p11_literacy:i1', 'p12_working:i1', 'p13_looking:i1', 'p14_why_not:i1'],
      // Subitems P15A_OCC and P16A_IND right after their parents.
      ...['p15_occ:i2', 'p15a_occ:i1', 'p16_ind:i2', 'p16a_ind:i1', 'p17_wk_status:i1', 'econ_active:i1'],
      ...['p18_born:i2', 'p19_living:i2', 'p20_born12:i1'],
    ]);
    assert.deepEqual(columns(plan.tables[2]!), [
      ...L1,
      ...['h01_type:i1', 'h02_wall:i1', 'h03_roof:i1', 'h04_floor:i1', 'h05_rooms:i2', 'h06_tenure:i1', 'h07_rent:i3'],
      ...['h08_toilet:i1', 'h09_bath:i1', 'h10_water:i1', 'h11_light:i1', 'h12_fuel:i1', 'h13_persons:i4'],
    ]);
    assert.deepEqual(columns(plan.tables[3]!), NOTES);
    assert.deepEqual(columns(plan.tables[4]!), JOBS);
    for (const t of plan.tables.slice(1, 3)) assert.deepEqual(t.primaryKey, ['case_id', 'occ']);
  });

  it('popstan-census in the text form plans the same tables and hash as the JSON form', () => {
    assert.deepEqual(planOf('popstan-census.text.dcf', 'popstan'), planOf('popstan-census.json.dcf', 'popstan'));
  });

  it('capi-household.dcf: alpha parent with numeric subitems, decimals', () => {
    const plan = planOf('capi-household.dcf', 'Household');
    assert.deepEqual(
      plan.tables.map((t) => t.name),
      [
        'household_cases',
        'household_population_record',
        'household_dwelling_unit_record',
        'household_metadata_record',
        'household_notes',
        'household_cspro_jobs',
        'household_value_sets',
        'household_items',
      ],
    );
    assert.deepEqual(columns(plan.tables[0]!), [
      ...MAIN_HEAD,
      ...['hh_province:i2', 'hh_district:i2', 'hh_ea:i3', 'hh_segment:v1', 'hh_number:i4'],
      ...MAIN_TAIL,
    ]);
    assert.deepEqual(columns(table(plan, 'household_population_record')), [
      ...L1,
      ...['hh_keep_row:i1', 'hh_name:v50', 'hh_relationship:i2', 'hh_sex:i1'],
      ...['hh_date_of_birth:v6', 'hh_month_born:i2', 'hh_year_born:i4'],
      ...['hh_age:i3', 'hh_citizenship:i1', 'hh_residence_situation:i1', 'hh_literacy:i1', 'hh_education:i1'],
      ...['hh_work_status:i1', 'hh_marital_status:i1', 'hh_marital_age:i3', 'hh_children_ever_born:i2'],
      ...['hh_boys_ever_born:i2', 'hh_boys_still_alive:i2', 'hh_girls_ever_born:i2', 'hh_girls_still_alive:i2', 'hh_more_rows:i1'],
    ]);
    assert.deepEqual(columns(table(plan, 'household_metadata_record')), [
      ...L1,
      ...['hh_interviewer_code:v36', 'hh_supervisor_code:v36', 'hh_start_interview_time:i10', 'hh_end_interview_time:i10'],
      ...['hh_program_publish_date:i14', 'hh_gps_reading:i1', 'hh_gps_latitude:d10,6', 'hh_gps_longitude:d11,6'],
      ...['hh_gps_altitude:d7,1', 'hh_gps_accuracy:d6,1', 'hh_gps_satellites:i3', 'hh_gps_readtime:i6'],
      ...['hh_introduction:i1', 'hh_population_section:i1', 'hh_dwelling_section:i1', 'hh_conclusion:i1'],
    ]);
    assert.equal(table(plan, 'household_dwelling_unit_record').columns.length, 2 + 9);
  });

  it('two-level.json.dcf: level table and level-2 records with the level path', () => {
    const plan = planOf('two-level.json.dcf', 'twolevel');
    assert.deepEqual(
      plan.tables.map((t) => [t.name, t.kind, t.level, t.record]),
      [
        ['twolevel_cases', 'main', undefined, undefined],
        ['twolevel_level_2', 'level', 2, undefined],
        ['twolevel_build_rec', 'record', 1, 'BUILD_REC'],
        ['twolevel_house_rec', 'record', 2, 'HOUSE_REC'],
        ['twolevel_pop_recc', 'record', 2, 'POP_RECC'],
        ['twolevel_notes', 'notes', undefined, undefined],
        ['twolevel_cspro_jobs', 'jobs', undefined, undefined],
        ['twolevel_value_sets', 'value_sets', undefined, undefined],
        ['twolevel_items', 'items', undefined, undefined],
      ],
    );
    assert.deepEqual(columns(plan.tables[0]!), [...MAIN_HEAD, 'prov:i2', 'dist:i2', 'village:i2', 'ea:i3', 'build:i3', ...MAIN_TAIL]);
    assert.deepEqual(columns(plan.tables[1]!), ['case_id:guid!', 'occ:i9!', 'house_number:i3']);
    assert.deepEqual(plan.tables[1]!.primaryKey, ['case_id', 'occ']);
    assert.deepEqual(columns(plan.tables[2]!), [...L1, 'roof:i1', 'water:i1', 'number_of_hus:i3']);
    const l2 = ['case_id:guid!', 'level_2_occ:i9!', 'occ:i9!'];
    assert.deepEqual(columns(plan.tables[3]!), [...l2, 'telephone:i1', 'heat:i1', 'pc:i1']);
    assert.deepEqual(columns(plan.tables[4]!), [...l2, 'line:i2', 'sex:i1', 'age:i3', 'm_status:i1']);
    assert.deepEqual(plan.tables[4]!.primaryKey, ['case_id', 'level_2_occ', 'occ']);
    assert.deepEqual(planOf('two-level.text.dcf', 'twolevel'), plan);
  });

  it('idb-population.dcf: a repeating item of 101 occurrences', () => {
    const plan = planOf('idb-population.dcf', 'idb');
    assert.deepEqual(
      plan.tables.map((t) => `${t.name}/${t.columns.length}`),
      [
        'idb_cases/8',
        'idb_country_metadata_rec/4',
        'idb_midyear_population_rec/4',
        'idb_agesex_population_rec/105',
        'idb_notes/10',
        'idb_cspro_jobs/5',
        'idb_value_sets/12',
        'idb_items/12',
      ],
    );
    assert.deepEqual(columns(plan.tables[0]!), [...MAIN_HEAD, 'fips_code:v2', ...MAIN_TAIL]);
    assert.deepEqual(columns(plan.tables[1]!), [...L1, 'country_name:v35', 'area:i8']);
    assert.deepEqual(columns(plan.tables[2]!), [...L1, 'midyear_year:i4', 'midyear_population:i10']);
    const agesex = columns(plan.tables[3]!);
    assert.deepEqual(agesex.slice(0, 6), [...L1, 'agesex_year:i4', 'agesex_sex:i1', 'agesex_population_1:i8', 'agesex_population_2:i8']);
    assert.deepEqual(agesex.slice(-2), ['agesex_population_100:i8', 'agesex_population_101:i8']);
    assert.equal(new Set(agesex.slice(4)).size, 101);
    assert.ok(agesex.slice(4).every((c, i) => c === `agesex_population_${i + 1}:i8`));
  });

  it('simple-capi.dcf', () => {
    const plan = planOf('simple-capi.dcf', 'simplecapi');
    assert.deepEqual(
      plan.tables.map((t) => t.name),
      [
        'simplecapi_cases',
        'simplecapi_population_rec',
        'simplecapi_housing_rec',
        'simplecapi_notes',
        'simplecapi_cspro_jobs',
        'simplecapi_value_sets',
        'simplecapi_items',
      ],
    );
    assert.deepEqual(columns(plan.tables[0]!), [...MAIN_HEAD, 'cluster:i3', 'hhno:i3', ...MAIN_TAIL]);
    assert.deepEqual(columns(plan.tables[1]!), [...L1, 'p1:v30', 'p2:i1', 'p3:i1', 'p4:i2', 'p5:i2']);
    assert.deepEqual(columns(plan.tables[2]!), [...L1, 'h3:i1', 'h4:i1', 'date_of_survey:i8', 'checkbox:v3']);
  });

  it('every fixture fits MySQL, PostgreSQL and SQL Server limits with a realistic label', () => {
    for (const file of ['popstan-census.json.dcf', 'capi-household.dcf', 'two-level.json.dcf', 'idb-population.dcf', 'simple-capi.dcf']) {
      for (const limit of [63, 64, 128]) {
        const plan = planOf(file, 'Census2025_round1', limit);
        for (const t of plan.tables) {
          assert.ok(t.name.length <= limit);
          for (const c of t.columns) assert.ok(c.name.length <= limit);
        }
      }
    }
  });
});
