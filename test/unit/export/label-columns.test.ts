// `--labels both` (docs/export.md#codes-and-labels-side-by-side): where the label columns go,
// their names, and the label of each code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planExport } from '../../../src/export/export-plan.js';
import { ExportNames } from '../../../src/export/export-names.js';
import { labelInserter, withLabelColumns } from '../../../src/export/label-columns.js';
import type { ExportColumn, ExportValueSet } from '../../../src/export/model.js';

const FIXTURES = new URL('../../../fixtures/cspro/', import.meta.url);
const popstan = () => parseDictionary(readFileSync(new URL('popstan-census.json.dcf', FIXTURES)), { file: 'popstan-census.json.dcf' });

const ages: ExportValueSet = {
  name: 'AGE',
  label: 'Age',
  numeric: true,
  values: [
    { value: 98, label: 'Not known' },
    { value: 99, label: 'Refused', special: 'REFUSED' },
    { value: 5, label: '  ' },
  ],
  ranges: [
    { from: 0, to: 14, label: 'Child' },
    { from: 15, to: 97, label: '' },
  ],
};

function col(name: string, extra: Partial<ExportColumn> = {}): ExportColumn {
  return { name, source: name, label: name.toUpperCase(), type: { kind: 'integer', digits: 2 }, ...extra };
}

function claimAll(columns: ExportColumn[]): ExportNames {
  const names = new ExportNames();
  for (const c of columns) names.claim(c.name);
  return names;
}

test('a label column follows each column whose value set labels something; none for blank-only value sets', () => {
  const blankOnly: ExportValueSet = { name: 'LINE', label: 'Line', numeric: true, values: [], ranges: [{ from: 1, to: 30, label: '' }] };
  const columns = [
    col('case_id', { type: { kind: 'guid' } }),
    col('age', { item: 'AGE', occurrence: 2, valueSet: ages }),
    col('line', { item: 'LINE', valueSet: blankOnly }),
    col('name', { type: { kind: 'varchar', length: 10 } }),
  ];
  const out = withLabelColumns(columns, claimAll(columns));
  assert.deepEqual(
    out.map((c) => c.name),
    ['case_id', 'age', 'age_label', 'line', 'name'],
  );
  assert.deepEqual(out[2], {
    name: 'age_label',
    source: 'age',
    item: 'AGE',
    occurrence: 2,
    label: 'AGE (value label)',
    type: { kind: 'text' },
    labelsOf: 'age',
  });
});

test('label column names never rename a column: a taken name gets _2, a long one is shortened within 32 characters', () => {
  const long = 'a_very_long_item_name_of_thirty';
  const columns = [col('sex', { valueSet: ages }), col('sex_label'), col(long, { valueSet: ages })];
  const out = withLabelColumns(columns, claimAll(columns));
  const names = out.map((c) => c.name);
  assert.deepEqual(names.slice(0, 4), ['sex', 'sex_label_2', 'sex_label', long]);
  assert.equal(out[4]!.labelsOf, long);
  assert.ok(out[4]!.name.length <= 32, out[4]!.name);
  assert.match(out[4]!.name, /^a_very_long_item_name_o[a-z0-9_]*_[0-9a-f]{8}$/);
  assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length, 'unique ignoring case');
});

test('label cells: the value label, else the range label; NULL for blank labels, unlabelled codes and blanks', () => {
  const columns = [col('id', { type: { kind: 'guid' } }), col('age', { valueSet: ages }), col('n')];
  const out = withLabelColumns(columns, claimAll(columns));
  const insert = labelInserter(out)!;
  const label = (code: number | string | null) => insert(['g', code, 7])[2];
  assert.deepEqual(insert(['g', 98, 7]), ['g', 98, 'Not known', 7]);
  assert.equal(label(99), 'Refused', 'a special code has its label');
  assert.equal(label(3), 'Child', 'a range label');
  assert.equal(label('3'), 'Child', 'a wide code held as text');
  assert.equal(label(5), 'Child', 'a blank value label gives way to the range');
  assert.equal(label(40), null, 'a range with a blank label labels nothing');
  assert.equal(label(120), null, 'a code outside the value set');
  assert.equal(label(null), null);
  assert.equal(labelInserter(columns), undefined, 'a table without label columns has no inserter');
});

test('decimal and alpha codes are matched as codes: at the scale, without trailing spaces', () => {
  const dec: ExportValueSet = { name: 'D', label: 'D', numeric: true, values: [{ value: 1.5, label: 'One and a half' }], ranges: [] };
  const alpha: ExportValueSet = { name: 'A', label: 'A', numeric: false, values: [{ value: 'AB', label: 'Alpha' }], ranges: [] };
  const columns = [
    col('d', { type: { kind: 'decimal', precision: 4, scale: 2 }, valueSet: dec }),
    col('a', { type: { kind: 'varchar', length: 4 }, valueSet: alpha }),
  ];
  const insert = labelInserter(withLabelColumns(columns, claimAll(columns)))!;
  assert.deepEqual(insert([1.5, 'AB  ']), [1.5, 'One and a half', 'AB  ', 'Alpha']);
  assert.deepEqual(insert(['1.50', 'ab']), ['1.50', 'One and a half', 'ab', null]);
});

test('the Popstan plan with labelColumns: person has p03_sex_label after p03_sex, and keeps every other name', () => {
  const dict = popstan();
  const codes = planExport(dict, 'popstan');
  const both = planExport(dict, 'popstan', { labelColumns: true });
  for (let t = 0; t < codes.tables.length; t++) {
    const plain = codes.tables[t]!.table.columns;
    const withLabels = both.tables[t]!.table.columns;
    assert.deepEqual(
      withLabels.filter((c) => c.labelsOf === undefined),
      plain,
      `${codes.tables[t]!.table.name}: the same code columns`,
    );
    for (const [i, c] of withLabels.entries()) if (c.labelsOf !== undefined) assert.equal(withLabels[i - 1]!.name, c.labelsOf);
  }
  const person = both.tables.find((t) => t.table.name === 'popstan_person')!.table.columns.map((c) => c.name);
  const at = person.indexOf('p03_sex');
  assert.equal(person[at + 1], 'p03_sex_label');
  assert.ok(!person.includes('p04_age_label'), 'a value set of a blank range labels nothing');
  assert.ok(person.includes('province_label'), 'id items get their label columns too');
});
