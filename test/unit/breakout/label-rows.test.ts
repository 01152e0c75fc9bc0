/**
 * The rows of the label tables, compared with the dictionary files read by JSON.parse
 * (test/helpers/raw-value-sets.ts), and the names of the label tables beside records called
 * ITEMS or VALUE_SETS (docs/breakout.md#value-sets-and-item-labels).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import { labelRows } from '../../../src/breakout/label-rows.js';
import { AppError } from '../../../src/shared/errors.js';
import { fixture } from '../../helpers/temp-home.js';
import { rawItems, rawValueRows } from '../../helpers/raw-value-sets.js';

const limits = { maxIdentifierLength: 63 };
const source = (name: string) => readFileSync(fixture(name), 'utf8');

/** A value-set row as the expected shape (numbers from the DECIMAL text). */
function asExpected(row: (string | number | boolean | null)[]) {
  const num = (v: unknown) => (v === null ? null : Number(v));
  return {
    item: row[0],
    valueSetOrder: row[1],
    valueOrder: row[2],
    pairOrder: row[3],
    valueSetName: row[4],
    valueSetLabel: row[5],
    from: row[6],
    to: row[7],
    fromNum: num(row[8]),
    toNum: num(row[9]),
    label: row[10],
    special: row[11],
  };
}

describe('label rows', () => {
  for (const file of ['popstan-census.json.dcf', 'capi-household.dcf']) {
    it(`${file}: every value, range and special of every value set`, () => {
      const dict = parseDictionary(source(file));
      const rows = labelRows(planBreakout(dict, 'p', limits), dict);
      const expected = rawValueRows(fixture(file));
      assert.ok(expected.length > 100);
      assert.deepEqual(rows.valueSets.rows.map(asExpected), expected);
    });
  }

  it('popstan-census.text.dcf (CSPro 7.7 text form): the same rows as the JSON file gives', () => {
    const dict = parseDictionary(source('popstan-census.text.dcf'));
    const rows = labelRows(planBreakout(dict, 'p', limits), dict);
    assert.deepEqual(rows.valueSets.rows.map(asExpected), rawValueRows(fixture('popstan-census.json.dcf')));
  });

  it('popstan: ranges, NOTAPPL and several value sets of one item are there', () => {
    const dict = parseDictionary(source('popstan-census.json.dcf'));
    const rows = labelRows(planBreakout(dict, 'p', limits), dict).valueSets.rows.map(asExpected);
    assert.ok(rows.some((r) => r.to !== null && r.fromNum! < r.toNum!));
    assert.ok(rows.some((r) => r.special === 'NOTAPPL' && r.from === '' && r.fromNum === null));
    assert.deepEqual(
      [...new Set(rows.filter((r) => r.item === 'P04_AGE').map((r) => `${r.valueSetOrder}:${r.valueSetName}`))],
      ['1:P04_AGE_VS1', '2:P04_AGE_VS2', '3:P04_AGE_VS3', '4:AGG_10_5'],
    );
  });

  it('capi-household: MISSING specials keep their code; alpha values have no numbers', () => {
    const dict = parseDictionary(source('capi-household.dcf'));
    const rows = labelRows(planBreakout(dict, 'p', limits), dict).valueSets.rows.map(asExpected);
    const missing = rows.filter((r) => r.special === 'MISSING');
    assert.ok(missing.length >= 2);
    for (const r of missing) assert.equal(r.fromNum, Number(r.from));
  });

  it('one items row per item column, with the item as the dictionary gives it', () => {
    for (const file of ['popstan-census.json.dcf', 'capi-household.dcf', 'idb-population.dcf']) {
      const dict = parseDictionary(source(file));
      const plan = planBreakout(dict, 'p', limits);
      const { items, hash } = labelRows(plan, dict);
      const raw = rawItems(fixture(file));
      // Every column of every data table that is not bookkeeping is an item column.
      const itemColumns = plan.tables
        .filter((t) => t.kind === 'main' || t.kind === 'level' || t.kind === 'record')
        .reduce((n, t) => n + t.columns.length - (t.kind === 'main' ? 7 : t.primaryKey.length), 0);
      assert.equal(items.rows.length, itemColumns, file);
      for (const r of items.rows) {
        const e = raw.get(String(r[2]))!;
        assert.ok(e, `${file}: ${String(r[2])}`);
        const table = plan.tables.find((t) => t.name === r[0])!;
        assert.ok(
          table.columns.some((c) => c.name === r[1]),
          `${String(r[0])}.${String(r[1])}`,
        );
        assert.deepEqual(
          [r[3], r[4], r[5], r[6], r[7], r[10], r[11]],
          [e.label, e.record, e.contentType, e.length, e.decimals, e.valueSet, hash],
        );
        assert.equal(r[1], r[8] === null ? e.name.toLowerCase() : `${e.name.toLowerCase()}_${String(r[8])}`);
      }
    }
    // idb-population: AGESEX_POPULATION repeats 101 times.
    const dict = parseDictionary(source('idb-population.dcf'));
    const rows = labelRows(planBreakout(dict, 'p', limits), dict).items.rows.filter((r) => r[2] === 'AGESEX_POPULATION');
    assert.deepEqual(
      rows.map((r) => r[8]),
      Array.from({ length: 101 }, (_, i) => i + 1),
    );
  });

  it('the hash follows the labels, and labels never touch the structure hash', () => {
    const text = source('popstan-census.json.dcf');
    const dict = parseDictionary(text);
    const plan = planBreakout(dict, 'p', limits);
    const same = parseDictionary(text);
    assert.equal(labelRows(planBreakout(same, 'p', limits), same).hash, labelRows(plan, dict).hash);
    const relabelled = parseDictionary(text.replace('"text": "Artesia"', '"text": "Artesia Province"'));
    const plan2 = planBreakout(relabelled, 'p', limits);
    assert.equal(plan2.structureHash, plan.structureHash);
    assert.notEqual(labelRows(plan2, relabelled).hash, labelRows(plan, dict).hash);
  });
});

describe('label tables beside records named ITEMS or VALUE_SETS', () => {
  const renamed = (json: string, from: string, to: string) => json.replace(`"name": "${from}"`, `"name": "${to}"`);

  it('the records keep p_items and p_value_sets; the label tables move to p_sds_…', () => {
    let text = source('popstan-census.json.dcf');
    text = renamed(renamed(text, 'HOUSING', 'ITEMS'), 'PERSON', 'VALUE_SETS');
    const dict = parseDictionary(text);
    const plan = planBreakout(dict, 'p', limits);
    assert.deepEqual(
      plan.tables.map((t) => `${t.name}:${t.kind}`),
      [
        'p_cases:main',
        'p_value_sets:record',
        'p_items:record',
        'p_notes:notes',
        'p_cspro_jobs:jobs',
        'p_sds_value_sets:value_sets',
        'p_sds_items:items',
      ],
    );
    // The items table describes the record table p_items, not itself.
    const { items } = labelRows(plan, dict);
    assert.ok(items.rows.some((r) => r[0] === 'p_items' && r[4] === 'ITEMS'));
  });

  it('a record named SDS_ITEMS beside one named ITEMS is a NAME_COLLISION naming both', () => {
    let text = source('popstan-census.json.dcf');
    text = renamed(renamed(text, 'HOUSING', 'ITEMS'), 'PERSON', 'SDS_ITEMS');
    const dict = parseDictionary(text);
    assert.throws(
      () => planBreakout(dict, 'p', limits),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'NAME_COLLISION' &&
        e.message.includes('p_sds_items') &&
        e.message.includes('record SDS_ITEMS') &&
        e.message.includes('the items table'),
    );
  });
});
