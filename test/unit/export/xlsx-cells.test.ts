import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cellText, MAX_CELL_CHARS, rowCells, sheetCell } from '../../../src/export/formats/xlsx/cells.js';
import { MAX_SHEET_NAME, sheetNames } from '../../../src/export/formats/xlsx/sheet-names.js';
import type { ExportColumn } from '../../../src/export/model.js';

describe('Excel sheet names (docs/export.md#excel)', () => {
  it('keeps a valid name, replaces the characters Excel refuses and leading or trailing apostrophes', () => {
    assert.deepEqual(sheetNames(['popstan_person', 'a[b]:c*d?e/f\\g', "'quoted'", 'tab\there']), [
      'popstan_person',
      'a_b__c_d_e_f_g',
      '_quoted_',
      'tab_here',
    ]);
  });

  it('shortens names past 31 characters with a hash, so two long names that share a head differ', () => {
    const [a, b] = sheetNames(['household_member_roster_record_a', 'household_member_roster_record_b']);
    assert.ok(a!.length <= MAX_SHEET_NAME && b!.length <= MAX_SHEET_NAME);
    assert.notEqual(a, b);
    assert.match(a!, /^household_member_roste_[0-9a-f]{8}$/);
  });

  it('makes names unique ignoring case, after the names taken, and never History', () => {
    assert.deepEqual(sheetNames(['Codebook', 'x', 'X', 'history'], ['codebook']), ['Codebook_2', 'x', 'X_2', 'history_']);
    const long = 'p'.repeat(31);
    const [first, second] = sheetNames([long, long.toUpperCase()]);
    assert.equal(first, long);
    assert.equal(second, 'P'.repeat(29) + '_2');
  });

  it('is deterministic', () => {
    const names = ['a', 'b'.repeat(40), 'A'];
    assert.deepEqual(sheetNames(names), sheetNames(names));
  });
});

describe('Excel cells', () => {
  it('numbers stay numbers, unless Excel would lose a digit; booleans are 1/0; NULL is empty', () => {
    assert.equal(sheetCell('integer', 12), 12);
    assert.equal(sheetCell('decimal', -1234.56), -1234.56);
    assert.equal(sheetCell('integer', 123_456_789_012_345), 123_456_789_012_345);
    assert.equal(sheetCell('integer', 1_234_567_890_123_456), '1234567890123456');
    assert.equal(sheetCell('integer', '12345678901234567890'), '12345678901234567890');
    assert.equal(sheetCell('decimal', 0.000_001_5), 0.000_001_5);
    assert.equal(sheetCell('boolean', true), 1);
    assert.equal(sheetCell('boolean', false), 0);
    assert.equal(sheetCell('varchar', null), null);
  });

  it('times are dates, text is text, cut to what a cell holds on a character boundary', () => {
    assert.deepEqual(sheetCell('timestamp', '2024-03-01T10:00:00.123Z'), new Date(Date.UTC(2024, 2, 1, 10, 0, 0, 123)));
    assert.equal(sheetCell('timestamp', 'not a time'), 'not a time');
    assert.equal(sheetCell('varchar', '=1+1'), '=1+1');
    assert.equal(cellText('x'.repeat(MAX_CELL_CHARS + 10)).length, MAX_CELL_CHARS);
    const emoji = 'x'.repeat(MAX_CELL_CHARS - 1) + '😀';
    assert.equal(cellText(emoji), 'x'.repeat(MAX_CELL_CHARS - 1));
  });

  it('--labels labels: the label of a labelled code, else the code', () => {
    const columns: ExportColumn[] = [
      {
        name: 'sex',
        source: 'sex',
        label: 'Sex',
        type: { kind: 'integer', digits: 1 },
        valueSet: {
          name: 'SEX',
          label: 'Sex',
          numeric: true,
          values: [
            { value: 1, label: 'Male' },
            { value: 2, label: ' ' },
          ],
          ranges: [{ from: 3, to: 9, label: 'Other' }],
        },
      },
      {
        name: 'kind',
        source: 'kind',
        label: 'Kind',
        type: { kind: 'varchar', length: 2 },
        valueSet: { name: 'K', label: 'K', numeric: false, values: [{ value: 'A', label: 'Apple' }], ranges: [] },
      },
      { name: 'n', source: 'n', label: 'N', type: { kind: 'integer', digits: 3 } },
    ];
    const codes = rowCells(columns, { labels: 'codes' });
    const labels = rowCells(columns, { labels: 'labels' });
    assert.deepEqual(codes([1, 'A ', 5]), [1, 'A ', 5]);
    assert.deepEqual(labels([1, 'A ', 5]), ['Male', 'Apple', 5]);
    // A blank label and a range name nothing in place of a code, as in CSV.
    assert.deepEqual(labels([2, 'B', null]), [2, 'B', null]);
    assert.deepEqual(labels([4, null, 7]), [4, null, 7]);
  });
});
