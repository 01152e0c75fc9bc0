import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import { isLabelTable } from '../../../src/breakout/plan-model.js';
import { planExport } from '../../../src/export/export-plan.js';
import { isReservedName } from '../../../src/export/export-names.js';
import { AppError } from '../../../src/shared/errors.js';
import { alpha, dictionary, level, num, record } from '../breakout/plan-helpers.js';

const FIXTURES = new URL('../../../fixtures/cspro/', import.meta.url);
const popstan = () => parseDictionary(readFileSync(new URL('popstan-census.json.dcf', FIXTURES)), { file: 'popstan-census.json.dcf' });

describe('export plan of the Popstan census', () => {
  const dict = popstan();
  const plan = planExport(dict, 'popstan');
  const sqlite = planBreakout(dict, 'popstan', { maxIdentifierLength: 128 });

  it('has the SQLite breakout tables of cases (not jobs, value sets or items), in breakout order, their columns in breakout order', () => {
    assert.deepEqual(
      plan.tables.map((t) => t.table.name),
      sqlite.tables.filter((t) => t.kind !== 'jobs' && !isLabelTable(t)).map((t) => t.name),
    );
    assert.deepEqual(
      plan.tables.map((t) => t.table.name),
      ['popstan_cases', 'popstan_person', 'popstan_housing', 'popstan_notes'],
    );
    // The breakout's columns, record tables with the level-1 id items after case_id
    // (docs/export.md#id-items): exactly so with --no-ids.
    const cases = sqlite.tables.find((t) => t.kind === 'main')!;
    const ids = cases.columns.slice(3, 11);
    assert.deepEqual(
      ids.map((c) => c.name),
      ['province', 'district', 'village', 'ea', 'ur', 'building', 'hu', 'hh'],
    );
    const bare = planExport(dict, 'popstan', { ids: false });
    for (const [p, withIds] of [
      [plan, true],
      [bare, false],
    ] as const) {
      for (const t of p.tables) {
        const b = sqlite.tables[t.planIndex]!;
        const cols = withIds && t.kind === 'record' ? [b.columns[0]!, ...ids, ...b.columns.slice(1)] : b.columns;
        assert.deepEqual(
          t.table.columns.map((c) => c.source),
          cols.map((c) => c.name),
        );
        assert.deepEqual(
          t.table.columns.map((c) => c.type),
          cols.map((c) => c.type),
        );
      }
    }
    const person = plan.tables.find((t) => t.record === 'PERSON')!.table;
    const main = plan.tables.find((t) => t.kind === 'main')!.table;
    assert.deepEqual(person.columns.slice(1, 9), main.columns.slice(3, 11), 'same names, labels, items and value sets');
  });

  it('labels item columns with the dictionary labels and carries their first value set', () => {
    const person = plan.tables.find((t) => t.record === 'PERSON')!.table;
    assert.equal(person.label, 'Person Record');
    const sex = person.columns.find((c) => c.source === 'p03_sex')!;
    assert.equal(sex.item, 'P03_SEX');
    assert.equal(sex.label, 'Sex');
    assert.deepEqual(sex.valueSet, {
      name: 'P03_SEX_VS1',
      label: 'Sex',
      numeric: true,
      values: [
        { value: 1, label: 'Male' },
        { value: 2, label: 'Female' },
      ],
      ranges: [],
    });
    const age = person.columns.find((c) => c.source === 'p04_age')!;
    assert.equal(age.valueSet!.name, 'P04_AGE_VS1', 'the first value set, not the 5-year groups');
    assert.deepEqual(age.valueSet!.ranges, [{ from: 0, to: 98, label: '' }]);
    const housing = plan.tables.find((t) => t.record === 'HOUSING')!.table;
    const rent = housing.columns.find((c) => c.source === 'h07_rent')!.valueSet!;
    assert.deepEqual(rent.values, [{ value: 999, label: 'Not reported' }], 'NOTAPPL has a blank code: nothing to label');
    assert.deepEqual(rent.ranges, [{ from: 0, to: 998, label: '' }]);
  });

  it('labels bookkeeping columns and leaves them without item', () => {
    const cases = plan.tables[0]!.table;
    const id = cases.columns[0]!;
    assert.equal(id.name, 'case_id');
    assert.equal(id.item, undefined);
    assert.match(id.label, /case id/i);
    assert.ok(cases.columns.every((c) => c.label.length > 0));
  });

  it('--record keeps the cases table and the records named (any case); unknown names are EXPORT_RECORD_UNKNOWN', () => {
    const p = planExport(dict, 'popstan', { records: ['person'] });
    assert.deepEqual(
      p.tables.map((t) => t.table.name),
      ['popstan_cases', 'popstan_person'],
    );
    const notes = planExport(dict, 'popstan', { records: ['notes', 'HOUSING'] });
    assert.deepEqual(
      notes.tables.map((t) => t.table.name),
      ['popstan_cases', 'popstan_housing', 'popstan_notes'],
    );
    const one = planExport(dict, 'popstan', { records: ['PERSON'], alwaysCases: false });
    assert.deepEqual(
      one.tables.map((t) => t.table.name),
      ['popstan_person'],
    );
    assert.throws(
      () => planExport(dict, 'popstan', { records: ['NOPE'] }),
      (e: unknown) => e instanceof AppError && e.code === 'EXPORT_RECORD_UNKNOWN' && /PERSON, HOUSING/.test(e.message),
    );
  });

  it('--include-deleted adds a boolean deleted column at the end of the cases table only', () => {
    const p = planExport(dict, 'popstan', { includeDeleted: true });
    const last = p.tables[0]!.table.columns.at(-1)!;
    assert.equal(last.name, 'deleted');
    assert.deepEqual(last.type, { kind: 'boolean' });
    assert.ok(p.deletedColumn);
    assert.ok(p.tables.slice(1).every((t) => !t.table.columns.some((c) => c.name === 'deleted')));
  });
});

describe('export plan of an adversarial dictionary', () => {
  const longA = 'HOUSEHOLD_MEMBER_RELATIONSHIP_TO_HEAD_A';
  const longB = 'HOUSEHOLD_MEMBER_RELATIONSHIP_TO_HEAD_B';
  const rec = record('PEOPLE', 10, [
    num(longA, 2, { labels: ['Relationship "A", first'] }),
    num(longB, 2),
    alpha('IF', 5),
    num('STR80', 1),
    num('HOUSEHOLD_MEMBER_RELATIONSHIP_TO_HEAD_AAAAA', 1, { occurrences: 3 }),
  ]);
  const dict = dictionary('ADV', [level('L1', [num('ID', 3)], [rec])]);
  const plan = planExport(dict, 'adv');
  const people = plan.tables.find((t) => t.record === 'PEOPLE')!.table;

  it('gives every column a valid, unique, non-reserved name of at most 32 characters', () => {
    const names = people.columns.map((c) => c.name);
    for (const n of names) {
      assert.match(n, /^[a-z_][a-z0-9_]*$/);
      assert.ok(n.length <= 32, n);
      assert.ok(!isReservedName(n), n);
    }
    assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length);
  });

  it('keeps the breakout column in source and occurrence labels for repeated items', () => {
    const a = people.columns.find((c) => c.item === longA)!;
    assert.equal(a.source, longA.toLowerCase());
    assert.equal(a.label, 'Relationship "A", first');
    assert.equal(people.columns.find((c) => c.item === 'IF')!.name, 'if_');
    const occ = people.columns.filter((c) => c.item === 'HOUSEHOLD_MEMBER_RELATIONSHIP_TO_HEAD_AAAAA');
    assert.deepEqual(
      occ.map((c) => c.occurrence),
      [1, 2, 3],
    );
    assert.deepEqual(
      occ.map((c) => c.label),
      [
        'household_member_relationship_to_head_aaaaa (1)',
        'household_member_relationship_to_head_aaaaa (2)',
        'household_member_relationship_to_head_aaaaa (3)',
      ],
    );
  });

  it('is the same on every run', () => {
    assert.deepEqual(planExport(dict, 'adv'), plan);
  });
});

describe('export plan: id items in record and level tables (docs/export.md#id-items)', () => {
  const dict = dictionary('TWO', [
    level('L1', [num('PROV', 2), num('OCC', 3)], [record('HOUSE', 1, [num('ROOMS', 2)])]),
    level('L2', [num('HH', 3)], [record('PERSON', 30, [num('AGE', 3)])]),
  ]);

  it('a level-2 record gets the ids of levels 1 and 2 after case_id; the keys keep their names', () => {
    const plan = planExport(dict, 'two');
    const cols = (name: string) => plan.tables.find((t) => t.table.name === name)!.table.columns.map((c) => [c.name, c.source]);
    assert.deepEqual(cols('two_person'), [
      ['case_id', 'case_id'],
      ['prov', 'prov'],
      ['occ_2', 'occ'],
      ['hh', 'hh'],
      ['level_2_occ', 'level_2_occ'],
      ['occ', 'occ'],
      ['age', 'age'],
    ]);
    assert.deepEqual(cols('two_house'), [
      ['case_id', 'case_id'],
      ['prov', 'prov'],
      ['occ_2', 'occ'],
      ['occ', 'occ'],
      ['rooms', 'rooms'],
    ]);
    assert.deepEqual(cols('two_level_2'), [
      ['case_id', 'case_id'],
      ['prov', 'prov'],
      ['occ_2', 'occ'],
      ['occ', 'occ'],
      ['hh', 'hh'],
    ]);
    const person = plan.tables.find((t) => t.table.name === 'two_person')!;
    assert.equal(person.idLevels, 2);
    assert.deepEqual(
      plan.idSources.map((s) => [s.level, plan.breakout.tables[s.planIndex]!.name, s.offset, s.count]),
      [
        [1, 'two_cases', 3, 2],
        [2, 'two_level_2', 2, 1],
      ],
    );
  });

  it('ids: false plans the breakout columns only', () => {
    const plan = planExport(dict, 'two', { ids: false });
    const person = plan.tables.find((t) => t.table.name === 'two_person')!;
    assert.deepEqual(
      person.table.columns.map((c) => c.name),
      ['case_id', 'level_2_occ', 'occ', 'age'],
    );
    assert.equal(person.idLevels, undefined);
  });
});
