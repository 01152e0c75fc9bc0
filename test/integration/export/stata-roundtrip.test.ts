/**
 * The Stata writer read back by pandas (test/helpers/read-stata.ts): every value, variable label
 * and value label of an adversarial table, compared with what was written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportCell, ExportColumn, ExportTable } from '../../../src/export/model.js';
import { readStata, type StataCell, type StataFile } from '../../helpers/read-stata.js';
import { statsOf, writeDta } from './stata-helpers.js';

const QUOTED = `Female, "quoted" and 'apostrophe'`;
const MULTILINE = 'Line one\nLine two, with a comma';
const ARABIC = 'لا أعرف';
const NAME32 = 'a_name_of_exactly_thirty_two_chr';

const col = (name: string, type: ExportColumn['type'], label: string, extra: Partial<ExportColumn> = {}): ExportColumn => ({
  name,
  source: name,
  label,
  type,
  ...extra,
});

const columns: ExportColumn[] = [
  col('case_id', { kind: 'guid' }, 'Case id'),
  col(NAME32, { kind: 'integer', digits: 1 }, 'Thirty-two characters'),
  col('sex', { kind: 'integer', digits: 1 }, `Sex of "the" person, l'enquêté`, {
    item: 'SEX',
    valueSet: {
      name: 'SEX_VS1',
      label: 'Sex',
      numeric: true,
      values: [
        { value: 1, label: 'Male' },
        { value: 2, label: QUOTED },
        { value: 3, label: MULTILINE },
        { value: 4, label: ARABIC },
        { value: 5, label: '中文 é' },
        { value: 9, label: 'Missing', special: 'MISSING' },
        { value: 8, label: 'Refused', special: 'REFUSED' },
        { value: 7, label: 'Default', special: 'DEFAULT' },
        { value: 6, label: 'Not applicable', special: 'NOTAPPL' },
      ],
      ranges: [],
    },
  }),
  col('age', { kind: 'integer', digits: 2 }, 'Age', {
    valueSet: {
      name: 'AGE_VS1',
      label: 'Age',
      numeric: true,
      values: [{ value: -9, label: 'Below' }],
      ranges: [
        { from: 0, to: 95, label: 'Years' },
        { from: 98, to: 98, label: 'Ninety-eight exactly' },
      ],
    },
  }),
  col('int4', { kind: 'integer', digits: 4 }, 'Four digits'),
  col('int9', { kind: 'integer', digits: 9 }, 'Nine digits'),
  col('int15', { kind: 'integer', digits: 15 }, 'Fifteen digits'),
  col('income', { kind: 'decimal', precision: 9, scale: 2 }, 'Income', {
    valueSet: {
      name: 'INCOME_VS1',
      label: 'Income',
      numeric: true,
      values: [
        { value: 2, label: 'Two' },
        { value: 1.5, label: 'One and a half' },
        { value: 9999999.99, label: 'Missing income', special: 'MISSING' },
      ],
      ranges: [],
    },
  }),
  col('region', { kind: 'varchar', length: 3 }, 'Region (alpha)', {
    valueSet: { name: 'REGION_VS1', label: 'Region', numeric: false, values: [{ value: 'N', label: 'North' }], ranges: [] },
  }),
  col('verified', { kind: 'boolean' }, 'Verified'),
  col('modified', { kind: 'timestamp' }, 'Modified'),
  col('short_text', { kind: 'text' }, 'é'.repeat(100)),
  col('long_text', { kind: 'text' }, '中'.repeat(100)),
  col('sex_2', { kind: 'integer', digits: 1 }, 'Sex (2)', { item: 'SEX', occurrence: 2 }),
];
// The second occurrence of a repeating item shares its value set.
columns[columns.length - 1]!.valueSet = columns[2]!.valueSet;

const long5000 = 'é'.repeat(2500); // 5000 bytes
const long100k = 'abc中'.repeat(16_667); // 100,002 bytes
const str2045 = 'x'.repeat(2045);

const rows: ExportCell[][] = [
  [
    '0a1b2c3d-0000-4000-8000-000000000001',
    0,
    1,
    99,
    9999,
    999999999,
    999999999999999,
    12345.67,
    'N',
    true,
    '2024-03-01T10:00:00.000Z',
    str2045,
    long5000,
    2,
  ],
  [
    '0a1b2c3d-0000-4000-8000-000000000002',
    9,
    2,
    -9,
    -999,
    -99999999,
    -99999999999999,
    '0.01',
    'S',
    false,
    '1959-12-31T23:59:59.999Z',
    '',
    '',
    9,
  ],
  ['0a1b2c3d-0000-4000-8000-000000000003', null, 9, 98, 0, 0, 1e15 - 1, -3.5, null, null, null, null, null, null],
  [
    '0a1b2c3d-0000-4000-8000-000000000004',
    5,
    8,
    null,
    null,
    null,
    null,
    9999999.99,
    '中文',
    true,
    '2099-12-31T23:59:59.000Z',
    `a "quoted", 'x'\nnew line`,
    long100k,
    6,
  ],
  ['0a1b2c3d-0000-4000-8000-000000000005', 1, 7, 0, 1, 1, '123456789012345', null, '', false, '1970-01-01T00:00:00.000Z', 'é', 'short', 7],
  ['0a1b2c3d-0000-4000-8000-000000000006', 2, 6, 5, 2, 2, 2, 2, 'W', null, null, 'ok', long5000 + '!', null],
  [null, null, null, null, null, null, null, null, null, null, null, null, null, null],
];

const table: ExportTable = { name: 'popstan_person', label: 'Person record, "quoted" é 中文', columns };

/** What pandas should give for a written cell, from Stata's rules (not from the writer). */
function expected(column: ExportColumn, cell: ExportCell): StataCell {
  const specials: Record<string, string> = { MISSING: '.a', REFUSED: '.b', DEFAULT: '.c', NOTAPPL: '.d' };
  switch (column.type.kind) {
    case 'integer':
    case 'decimal': {
      if (cell === null) return { missing: '.' };
      const n = Number(cell);
      const special = column.valueSet?.values.find((v) => v.value === n && v.special);
      if (special?.special) return { missing: specials[special.special]! };
      return n;
    }
    case 'boolean':
      return cell === null ? { missing: '.' } : cell ? 1 : 0;
    case 'timestamp':
      return cell === null ? null : String(cell);
    default:
      return cell === null ? '' : String(cell);
  }
}

describe('Stata .dta read back with pandas', () => {
  let dir: string;
  let file: StataFile;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sds-stata-'));
    const path = join(dir, 'person.dta');
    await writeDta(path, table, rows, statsOf(columns, rows));
    file = readStata(path);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is a format 118 file with the table label', () => {
    assert.equal(file.version, 118);
    assert.equal(file.dataLabel, table.label);
  });

  it('keeps every column name, in order, including one of 32 characters', () => {
    assert.deepEqual(
      file.columns.map((c) => c.name),
      columns.map((c) => c.name),
    );
    assert.equal(NAME32.length, 32);
  });

  it('stores each column in the smallest exact type', () => {
    const types = Object.fromEntries(file.columns.map((c) => [c.name, c.type]));
    assert.equal(types.sex, 'b');
    assert.equal(types.age, 'b');
    assert.equal(types.int4, 'h');
    assert.equal(types.int9, 'l');
    assert.equal(types.int15, 'd');
    assert.equal(types.income, 'd');
    assert.equal(types.verified, 'b');
    assert.equal(types.modified, 'd');
    assert.equal(types.case_id, 36);
    assert.equal(types.region, Buffer.byteLength('中文'));
    assert.equal(types.short_text, 2045, 'a value of exactly 2045 bytes stays str2045');
    assert.equal(types.long_text, 'Q', 'longer values make a strL');
    assert.equal(file.columns.find((c) => c.name === 'modified')?.format, '%tc');
  });

  it('reads back every value', () => {
    assert.equal(file.rows.length, rows.length);
    rows.forEach((row, r) => {
      columns.forEach((column, c) => {
        const got = file.rows[r]![c];
        const want = expected(column, row[c]!);
        const where = `row ${r + 1}, ${column.name}`;
        if (column.type.kind === 'timestamp') {
          if (want === null) assert.equal(got, null, where);
          else assert.equal(Date.parse(`${String(got)}Z`), Date.parse(String(want)), where);
        } else {
          assert.deepEqual(got, want, where);
        }
      });
    });
  });

  it('writes variable labels cut to 80 characters at a character boundary', () => {
    const labels = Object.fromEntries(file.columns.map((c) => [c.name, c.label]));
    assert.equal(labels.sex, `Sex of "the" person, l'enquêté`);
    assert.equal(labels.short_text, 'é'.repeat(80));
    assert.equal(labels.long_text, '中'.repeat(80));
  });

  it('writes value labels with specials on .a–.d, single-value ranges, and integers only', () => {
    const sex = file.columns.find((c) => c.name === 'sex')!;
    assert.deepEqual(sex.valueLabels, [
      [1, 'Male'],
      [2, QUOTED],
      [3, MULTILINE],
      [4, ARABIC],
      [5, '中文 é'],
      ['.a', 'Missing'],
      ['.b', 'Refused'],
      ['.c', 'Default'],
      ['.d', 'Not applicable'],
    ]);
    const age = file.columns.find((c) => c.name === 'age')!;
    assert.deepEqual(age.valueLabels, [
      [-9, 'Below'],
      [98, 'Ninety-eight exactly'],
    ]);
    const income = file.columns.find((c) => c.name === 'income')!;
    assert.deepEqual(income.valueLabels, [
      [2, 'Two'],
      ['.a', 'Missing income'],
    ]);
    const region = file.columns.find((c) => c.name === 'region')!;
    assert.equal(region.valueLabelName, '', 'Stata has no value labels for strings');
    assert.equal(file.columns.find((c) => c.name === 'verified')!.valueLabelName, '');
  });

  it('shares one value label between the occurrences of a repeating item', () => {
    const sex2 = file.columns.find((c) => c.name === 'sex_2')!;
    assert.equal(sex2.valueLabelName, 'sex');
    assert.deepEqual(sex2.valueLabels, file.columns.find((c) => c.name === 'sex')!.valueLabels);
  });
});
