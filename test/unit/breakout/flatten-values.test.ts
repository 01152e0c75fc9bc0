import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planBreakout } from '../../../src/breakout/plan.js';
import { createFlattener, type FlattenWarning } from '../../../src/breakout/flatten.js';
import type { CellValue } from '../../../src/breakout/plan-model.js';
import type { LevelObject } from '../../../src/cspro/case/model.js';
import { alpha, dictionary, item, level, num, record } from './plan-helpers.js';

const ID = '00000000-0000-4000-8000-00000000000a';
const dict = dictionary('V_DICT', [
  level(
    'Q',
    [num('ID', 1)],
    [
      record('VALS', 5, [
        num('I3', 3),
        num('D51', 5, { decimals: 1 }),
        alpha('A5', 5),
        num('R2', 1, { occurrences: 2 }),
        item('BIN', 'image', 1),
      ]),
    ],
  ),
]);
const plan = planBreakout(dict, 'v', { maxIdentifierLength: 63 });
const flatten = createFlattener(plan, dict);

/** Flattens one VALS occurrence; returns its item cells (i3, d51, a5, r2_1, r2_2, bin) and the warnings. */
function one(values: Record<string, unknown>, times: { modifiedTime?: string; breakoutTime?: string } = {}) {
  const flat = flatten({
    id: ID,
    caseids: '1',
    label: '',
    verified: false,
    revision: 1,
    modifiedTime: times.modifiedTime ?? '2024-01-01T00:00:00.000Z',
    breakoutTime: times.breakoutTime ?? '2024-01-02T00:00:00.000Z',
    level1: { id: { ID: 1 }, VALS: [values] } as unknown as LevelObject,
    notes: [],
  });
  return { cells: flat.rows[1]![0]!.slice(2), warnings: flat.warnings, main: flat.rows[0]![0]! };
}

const w = (item: string, value: string, reason: string): FlattenWarning => ({
  case: ID,
  record: 'VALS',
  item,
  occurrence: 1,
  value,
  reason,
});

function check(values: Record<string, unknown>, cells: CellValue[], warnings: FlattenWarning[] = []) {
  const got = one(values);
  assert.deepEqual(got.cells, cells);
  assert.deepEqual(got.warnings, warnings);
}

describe('flatten values: numeric', () => {
  it('keeps integers and decimals as numbers', () => {
    check({ I3: 999, D51: 9999.9, R2: [0, 9] }, [999, 9999.9, null, 0, 9, null]);
    check({ I3: -99, D51: -0.5 }, [-99, -0.5, null, null, null, null]);
  });

  it('reads numeric text as a number', () => {
    check({ I3: '12', D51: ' 3.25 ', R2: ['+1', '-2'] }, [12, 3.25, null, 1, -2, null]);
  });

  it('writes blanks as NULL without a warning', () => {
    check({ I3: '', D51: '   ', R2: ['', 1], A5: '' }, [null, null, null, null, 1, null]);
    check({ I3: null, D51: 'NOTAPPL', R2: [] }, [null, null, null, null, null, null]);
    // CSPro's internal NOTAPPL double (a .csdb import that did not translate it).
    check({ I3: 1e51 }, [null, null, null, null, null, null]);
  });

  it('writes unmapped specials as NULL with a warning', () => {
    check(
      { I3: 'MISSING', D51: 'DEFAULT', R2: ['REFUSED', 'missing'] },
      [null, null, null, null, null, null],
      [
        w('I3', 'MISSING', 'unmapped special value'),
        w('D51', 'DEFAULT', 'unmapped special value'),
        w('R2(1)', 'REFUSED', 'unmapped special value'),
        w('R2(2)', 'missing', 'unmapped special value'),
      ],
    );
    check({ I3: 1e50 }, [null, null, null, null, null, null], [w('I3', '1e+50', 'unmapped special value')]);
  });

  it('writes invalid values as NULL with a warning', () => {
    check(
      { I3: '***', D51: 'abc', R2: [true, { x: 1 }] },
      [null, null, null, null, null, null],
      [
        w('I3', '***', 'not a number'),
        w('D51', 'abc', 'not a number'),
        w('R2(1)', 'true', 'not a number'),
        w('R2(2)', '{"x":1}', 'not a number'),
      ],
    );
    check({ I3: 2.5 }, [null, null, null, null, null, null], [w('I3', '2.5', 'not a whole number')]);
  });

  it('writes values too large for the column as NULL with a warning', () => {
    check(
      { I3: 1000, D51: 10000, R2: [10, -10] },
      [null, null, null, null, null, null],
      [
        w('I3', '1000', 'too large for the column (at most 3 digits)'),
        w('D51', '10000', 'too large for the column (at most 4 digits before the decimal point)'),
        w('R2(1)', '10', 'too large for the column (at most 1 digits)'),
        w('R2(2)', '-10', 'too large for the column (at most 1 digits)'),
      ],
    );
    // 9999.96 would round to 10000.0, which DECIMAL(5,1) cannot hold; 9999.94 rounds down.
    check(
      { D51: 9999.96 },
      [null, null, null, null, null, null],
      [w('D51', '9999.96', 'too large for the column (at most 4 digits before the decimal point)')],
    );
    check({ D51: 9999.94 }, [null, 9999.94, null, null, null, null]);
    check({ I3: '1000' }, [null, null, null, null, null, null], [w('I3', '1000', 'too large for the column (at most 3 digits)')]);
  });
});

describe('flatten values: repeating items', () => {
  it('fills missing tail occurrences with NULL', () => {
    check({ R2: [4] }, [null, null, null, 4, null, null]);
  });

  it('takes a single value as the first occurrence', () => {
    check({ R2: 4 }, [null, null, null, 4, null, null]);
  });

  it('ignores occurrences beyond the dictionary with a warning', () => {
    check(
      { R2: [1, 2, 3] },
      [null, null, null, 1, 2, null],
      [w('R2', '3', 'more occurrences than the dictionary allows (2); the extra ones are ignored')],
    );
  });
});

describe('flatten values: alpha and binary', () => {
  it('keeps strings, and writes a number as its text', () => {
    check({ A5: 'ab c' }, [null, null, 'ab c', null, null, null]);
    check({ A5: 12.5 }, [null, null, '12.5', null, null, null]);
  });

  it('counts characters, not UTF-16 units', () => {
    check({ A5: 'añ😀ü' }, [null, null, 'añ😀ü', null, null, null]);
    check({ A5: '😀😀😀😀😀' }, [null, null, '😀😀😀😀😀', null, null, null]);
  });

  it('truncates a string longer than the item with a warning', () => {
    check(
      { A5: 'abcdefg' },
      [null, null, 'abcde', null, null, null],
      [w('A5', 'abcdefg', 'longer than the item (at most 5 characters); truncated')],
    );
    check(
      { A5: '😀😀😀😀😀😀' },
      [null, null, '😀😀😀😀😀', null, null, null],
      [w('A5', '😀😀😀😀😀😀', 'longer than the item (at most 5 characters); truncated')],
    );
  });

  it('writes something that is not text as NULL with a warning', () => {
    check({ A5: false }, [null, null, null, null, null, null], [w('A5', 'false', 'not text')]);
  });

  it('writes a lone surrogate as U+FFFD and drops NUL, with a warning (the same text in every target)', () => {
    const reason = 'a lone UTF-16 surrogate became U+FFFD; NUL characters were dropped, as in every target';
    check({ A5: 'a\uD800b\0c' }, [null, null, 'a\uFFFDbc', null, null, null], [w('A5', '"a\\ud800b\\u0000c"', reason)]);
    check(
      { A5: '\0\0' },
      [null, null, null, null, null, null],
      [w('A5', '"\\u0000\\u0000"', 'NUL characters were dropped, as in every target')],
    );
    // Normalised before the length check: 5 characters once the NULs are gone.
    check(
      { A5: 'ab\0cde' },
      [null, null, 'abcde', null, null, null],
      [w('A5', '"ab\\u0000cde"', 'NUL characters were dropped, as in every target')],
    );
  });

  it('normalises the label, the case key and notes the same way', () => {
    const flat = flatten({
      id: ID,
      caseids: 'k\0',
      label: 'x\uDC00',
      verified: false,
      revision: 5,
      modifiedTime: '2024-01-01T00:00:00.000Z',
      breakoutTime: '2024-01-01T00:00:00.000Z',
      level1: { id: { ID: 1 } } as unknown as LevelObject,
      notes: [
        {
          content: 'n\0\uD83D',
          field: { name: 'I3', levelKey: '1', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 },
          operatorId: 'op',
          modifiedTime: '2024-01-01T00:00:00.000Z',
        },
      ],
    });
    assert.deepEqual(flat.rows[0]![0]!.slice(1, 3), ['k', 'x\uFFFD']);
    assert.equal(flat.rows[2]![0]![7], 'n\uFFFD');
    assert.deepEqual(
      flat.warnings.map((x) => x.item),
      ['(case key)', '(case label)', '(note) 1'],
    );
  });

  it('writes a binary descriptor as JSON text', () => {
    check({ BIN: { signature: 'ab', length: 3 } }, [null, null, null, null, null, '{"signature":"ab","length":3}']);
    check({ BIN: '{"signature":"ab"}' }, [null, null, null, null, null, '{"signature":"ab"}']);
    check({ BIN: 7 }, [null, null, null, null, null, null], [w('BIN', '7', 'not a binary item descriptor')]);
  });
});

describe('flatten values: records and times', () => {
  it('writes a roster given as a single object as occurrence 1', () => {
    const flat = flatten({
      id: ID,
      caseids: '1',
      label: 'x',
      verified: true,
      revision: 5,
      modifiedTime: '2024-01-01T00:00:00.000Z',
      breakoutTime: '2024-01-01T00:00:00.000Z',
      level1: { id: { ID: 1 }, VALS: { I3: 5 } } as unknown as LevelObject,
      notes: [],
    });
    assert.deepEqual(flat.rows[1], [[ID, 1, 5, null, null, null, null, null]]);
  });

  it('skips a record occurrence that is not an object with a warning, keeping the others in place', () => {
    const flat = flatten({
      id: ID,
      caseids: '1',
      label: 'x',
      verified: true,
      revision: 5,
      modifiedTime: '2024-01-01T00:00:00.000Z',
      breakoutTime: '2024-01-01T00:00:00.000Z',
      level1: { id: { ID: 1 }, VALS: [{ I3: 1 }, 'junk', { I3: 3 }] } as unknown as LevelObject,
      notes: [],
    });
    assert.deepEqual(flat.rows[1], [
      [ID, 1, 1, null, null, null, null, null],
      [ID, 3, 3, null, null, null, null, null],
    ]);
    assert.deepEqual(flat.warnings, [
      { case: ID, record: 'VALS', item: 'VALS', occurrence: 2, value: 'junk', reason: 'record occurrence is not an object; ignored' },
    ]);
  });

  it('writes id item problems without a record', () => {
    const flat = flatten({
      id: ID,
      caseids: '1',
      label: 'x',
      verified: true,
      revision: 5,
      modifiedTime: '2024-01-01T00:00:00.000Z',
      breakoutTime: '2024-01-01T00:00:00.000Z',
      level1: { id: { ID: 'DEFAULT' } } as unknown as LevelObject,
      notes: [],
    });
    assert.deepEqual(flat.rows[0], [[ID, '1', 'x', null, true, 5, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z']]);
    assert.deepEqual(flat.warnings, [{ case: ID, item: 'ID', value: 'DEFAULT', reason: 'unmapped special value' }]);
  });

  it('normalises case times to UTC with milliseconds', () => {
    const got = one({}, { modifiedTime: '2024-03-01T12:00:00+02:00', breakoutTime: '2024-03-01T10:00:00Z' });
    assert.deepEqual(got.main.slice(-2), ['2024-03-01T10:00:00.000Z', '2024-03-01T10:00:00.000Z']);
  });

  it('writes an unreadable note time as NULL with a warning', () => {
    const flat = flatten({
      id: ID,
      caseids: '1',
      label: 'x',
      verified: false,
      revision: 5,
      modifiedTime: '2024-01-01T00:00:00.000Z',
      breakoutTime: '2024-01-01T00:00:00.000Z',
      level1: { id: { ID: 1 } } as unknown as LevelObject,
      notes: [
        {
          content: 'c',
          field: { name: 'I3', levelKey: '1', recordOccurrence: 2, itemOccurrence: 0, subitemOccurrence: 0 },
          operatorId: '',
          modifiedTime: 'never',
        },
      ],
    });
    assert.deepEqual(flat.rows[2], [[ID, 1, 'I3', '1', 2, 0, 0, 'c', '', null]]);
    assert.deepEqual(flat.warnings, [
      { case: ID, item: 'I3', value: 'never', reason: 'note 1 has an unreadable modified time; written as NULL' },
    ]);
  });
});
