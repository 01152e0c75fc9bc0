import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  alphaOutput,
  fieldText,
  foldOccurrences,
  itemSlots,
  NEEDS_CHECK,
  normalizeScalar,
  numericOutput,
  plainScalar,
  parseNumberString,
  readRecordItems,
  specialCodes,
  type InvalidField,
} from '../../../src/cspro/case/item-codec.js';
import { alpha, item, specials } from './build-dict.js';

describe('item-codec', () => {
  it('pads a short line with blanks', () => {
    assert.equal(fieldText('ABC', 1, 4), 'BC  ');
    assert.equal(fieldText('ABC', 5, 2), '  ');
  });

  it('maps specials through the FIRST value set only', () => {
    const age = item('AGE', 1, 3, specials({ MISSING: '999', NOTAPPL: '  ' }));
    age.valueSets.push({ name: 'VS2', labels: ['VS2'], values: [{ labels: ['r'], pairs: [{ from: '998' }], special: 'REFUSED' }] });
    const codes = specialCodes(age);
    assert.deepEqual([...codes.toCode], [['MISSING', 999]]);
    assert.deepEqual([...codes.fromCode], [[999, 'MISSING']]);
  });

  it('writes numeric values as the case model says', () => {
    const mapped = item('A', 1, 2, specials({ MISSING: '99', DEFAULT: '98', NOTAPPL: '97' }));
    const plain = item('B', 1, 2);
    assert.equal(numericOutput(mapped, 'MISSING'), 99);
    assert.equal(numericOutput(mapped, 'DEFAULT'), 98);
    assert.equal(numericOutput(mapped, 99), 99);
    assert.equal(numericOutput(mapped, 'REFUSED'), 'REFUSED');
    // CSPro reads a code mapped to NOTAPPL as NOTAPPL, i.e. blank.
    assert.equal(numericOutput(mapped, 97), undefined);
    assert.equal(numericOutput(plain, 'NOTAPPL'), undefined);
    assert.equal(numericOutput(plain, 'MISSING'), 'MISSING');
    assert.equal(numericOutput(plain, 'DEFAULT'), 'DEFAULT');
    assert.equal(numericOutput(plain, 12), 12);
  });

  it('right-trims alpha and turns ␤ back into a newline', () => {
    assert.equal(alphaOutput('  AB C   '), '  AB C');
    assert.equal(alphaOutput('    '), undefined);
    assert.equal(alphaOutput('L1\u2424L2  '), 'L1\nL2');
  });

  it('folds repeating occurrences up to the last non-blank one', () => {
    assert.deepEqual(foldOccurrences([1, undefined, 3, undefined], true), [1, '', 3]);
    assert.equal(foldOccurrences([undefined, undefined], true), undefined);
    assert.equal(foldOccurrences([5], false), 5);
  });

  it('reads a record line: blanks omitted, subitems, repeating items, invalid numerics', () => {
    const items = [
      alpha('NAME', 1, 5),
      item('DOB', 6, 6),
      item('DOB_Y', 6, 4, { subitem: true }),
      item('DOB_M', 10, 2, { subitem: true }),
      item('KIDS', 12, 2, { occurrences: 4, zeroFill: true }),
      item('EMPTY', 20, 2),
      item('BAD', 22, 2),
    ];
    const invalid: InvalidField[] = [];
    const line = 'ANN  1990040102  04  x1';
    assert.deepEqual(readRecordItems(line, items, invalid), {
      NAME: 'ANN',
      DOB: 199004,
      DOB_Y: 1990,
      DOB_M: 4,
      KIDS: [1, 2, '', 4],
      BAD: 'DEFAULT',
    });
    assert.deepEqual(invalid, [{ item: 'BAD', occurrence: 1, text: 'x1' }]);
  });

  it('repeats subitems of a repeating alpha parent with the parent stride', () => {
    // REPEATING_PARENT (alpha, 3 × len 2) with numeric subitems SUB_ONE (offset 0) and SUB_TWO (offset 1).
    const items = [
      alpha('PARENT', 1, 2, { occurrences: 3 }),
      item('SUB_ONE', 1, 1, { subitem: true }),
      item('SUB_TWO', 2, 1, { subitem: true }),
    ];
    const slots = itemSlots(items);
    assert.deepEqual(
      slots.map((s) => [s.item.name, s.parent?.name, s.occurrences, s.stride]),
      [
        ['PARENT', undefined, 3, 2],
        ['SUB_ONE', 'PARENT', 3, 2],
        ['SUB_TWO', 'PARENT', 3, 2],
      ],
    );
    assert.deepEqual(readRecordItems('   2x4', items), { PARENT: ['', ' 2', 'x4'], SUB_ONE: ['', '', 'DEFAULT'], SUB_TWO: ['', 2, 4] });
  });

  it('parses free-text numbers (sync JSON strings, csdb text)', () => {
    assert.equal(parseNumberString(' 12 '), 12);
    assert.equal(parseNumberString('-1,5'), -1.5);
    assert.equal(parseNumberString(''), 'NOTAPPL');
    assert.equal(parseNumberString('missing'), 'MISSING');
    assert.equal(parseNumberString('12345678'), 12345678);
    assert.equal(parseNumberString('12a'), undefined);
  });

  it('normalises JSON values per content type', () => {
    const age = item('AGE', 1, 3, specials({ MISSING: '999' }));
    const name = alpha('NAME', 1, 4);
    assert.deepEqual(normalizeScalar(age, 34), { ok: true, value: 34 });
    assert.deepEqual(normalizeScalar(age, '34'), { ok: true, value: 34 });
    assert.deepEqual(normalizeScalar(age, 'MISSING'), { ok: true, value: 999 });
    assert.deepEqual(normalizeScalar(age, 'REFUSED'), { ok: true, value: 'REFUSED' });
    assert.deepEqual(normalizeScalar(age, 1e50), { ok: true, value: 999 });
    assert.deepEqual(normalizeScalar(age, null), { ok: true, value: undefined });
    assert.deepEqual(normalizeScalar(age, 1234), { ok: true, value: 1234, tooWide: true });
    assert.deepEqual(normalizeScalar(age, 'abc'), {
      ok: false,
      reason: 'expects a number or MISSING/REFUSED/DEFAULT/NOTAPPL, got "abc"',
    });
    assert.deepEqual(normalizeScalar(age, true), { ok: false, reason: 'expects a number, got boolean true' });
    assert.deepEqual(normalizeScalar(name, 'AB  '), { ok: true, value: 'AB' });
    assert.deepEqual(normalizeScalar(name, 12), { ok: true, value: '12' });
    assert.deepEqual(normalizeScalar(name, 'ABCDEF'), { ok: true, value: 'ABCD', truncated: true });
    assert.deepEqual(normalizeScalar(name, {}), { ok: false, reason: 'expects text, got an object' });
  });
  it('the plain-value fast path answers exactly as normalizeScalar, or defers to it', () => {
    const items = [
      item('AGE', 1, 3),
      item('WIDE', 1, 2),
      item('MAPPED', 1, 3, specials({ MISSING: '999', NOTAPPL: '  ' })),
      item('DEC', 1, 5, { decimals: 2 }),
      alpha('NAME', 1, 6),
    ];
    const values: unknown[] = [
      0,
      -0,
      7,
      42,
      99,
      100,
      999,
      1000,
      -1,
      1.5,
      1e60,
      Number.NaN,
      '34',
      '',
      ' ',
      'Ana',
      'Ana ',
      'Ana\u2424B',
      'Anabelle',
      'MISSING',
      true,
      null,
      [1],
      {},
    ];
    let answered = 0;
    for (const it of items) {
      for (const raw of values) {
        const plain = plainScalar(it, raw);
        if (plain === NEEDS_CHECK) continue;
        answered += 1;
        assert.deepEqual({ ok: true, value: plain }, normalizeScalar(it, raw), `${it.name} ${JSON.stringify(raw)}`);
      }
    }
    // The fast path takes the common shapes: whole numbers that fit, texts that fit as they are.
    assert.equal(plainScalar(items[0]!, 42), 42);
    assert.equal(plainScalar(items[4]!, 'Ana'), 'Ana');
    assert.equal(plainScalar(items[1]!, 100), NEEDS_CHECK, 'too wide for 2 columns');
    assert.equal(plainScalar(items[2]!, 999), NEEDS_CHECK, 'an item with special codes');
    assert.equal(plainScalar(items[4]!, 'Anabelle'), NEEDS_CHECK, 'longer than the item');
    assert.ok(answered >= 10, `answered ${answered}`);
  });
});
