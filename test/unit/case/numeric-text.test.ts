import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeNumericText, encodeNumericText, fromStoredDouble, isSpecialName } from '../../../src/cspro/case/numeric-text.js';

describe('decodeNumericText (docs/cspro-formats.md#numeric-text)', () => {
  const table: [string, number, number | string][] = [
    // CSPro's own examples of reading numeric text.
    ['00123450', 2, 1234.5],
    ['  -12345', 2, -123.45],
    [' 12.345678', 6, 12.345678],
    ['  12345678', 6, 12.345678], // implied decimals even with DecimalChar=Yes
    [' 34', 0, 34],
    ['   ', 0, 'NOTAPPL'],
    ['***', 0, 'DEFAULT'],
    ['3 4', 0, 'DEFAULT'],
    ['034', 0, 34],
    // Signs and spaces after the sign.
    ['-  5', 0, -5],
    ['+007', 0, 7],
    ['  - ', 0, 'DEFAULT'],
    ['   +', 0, 'DEFAULT'],
    // Trailing space and stray characters.
    ['34 ', 0, 'DEFAULT'],
    ['1a', 0, 'DEFAULT'],
    ['1-2', 0, 'DEFAULT'],
    // Comma as the decimal mark; fraction of any length; second mark invalid.
    ['12,5', 1, 12.5],
    ['1.2345', 2, 1.2345],
    ['1.2.3', 2, 'DEFAULT'],
    ['   .5', 2, 0.5],
    // Implied decimals with fewer digits than decimals.
    ['     5', 2, 0.05],
    ['-1', 3, -0.001],
    // An integer item with a mark is read as a fraction (legacy tolerance).
    ['1.5', 0, 1.5],
    ['2,', 0, 2],
    // Zero never comes back as -0.
    ['-0', 0, 0],
    ['-000', 2, 0],
    // 15 digits stay exact.
    ['999999999999999', 0, 999999999999999],
  ];
  for (const [text, decimals, expected] of table) {
    it(`${JSON.stringify(text)} with ${decimals} decimals → ${expected}`, () => {
      const value = decodeNumericText(text, decimals);
      assert.equal(Object.is(value, -0), false);
      assert.equal(value, expected);
    });
  }
});

describe('encodeNumericText (docs/cspro-formats.md#numeric-text)', () => {
  const fmt = (length: number, decimals: number, decimalMark: boolean, zeroFill: boolean) => ({ length, decimals, decimalMark, zeroFill });
  const table: [number | string, ReturnType<typeof fmt>, string][] = [
    [1234.5, fmt(8, 2, false, true), '00123450'],
    [-123.45, fmt(8, 2, false, false), '  -12345'],
    [12.345678, fmt(10, 6, true, false), ' 12.345678'],
    [12.345678, fmt(10, 6, true, true), '012.345678'],
    [34, fmt(3, 0, false, false), ' 34'],
    [34, fmt(3, 0, false, true), '034'],
    [-12, fmt(5, 0, false, true), '-0012'],
    [-12, fmt(5, 0, false, false), '  -12'],
    ['NOTAPPL', fmt(3, 0, false, true), '   '],
    ['MISSING', fmt(3, 0, false, true), '***'],
    ['DEFAULT', fmt(2, 0, false, false), '**'],
    ['REFUSED', fmt(4, 1, true, false), '****'],
    // Overflow and no room for the sign.
    [1000, fmt(3, 0, false, true), '***'],
    [-123, fmt(3, 0, false, false), '***'],
    [-99, fmt(3, 0, false, true), '-99'],
    [123.4, fmt(4, 2, true, false), '****'],
    // Rounding half up, including binary fractions just under .5.
    [2.5, fmt(2, 0, false, false), ' 3'],
    [1.005, fmt(5, 2, true, true), '01.01'],
    // CSPro always writes the integer digit, so 0.13 without zero fill is ' 013', not '  13'.
    [0.125, fmt(4, 2, false, false), ' 013'],
    [-2.5, fmt(3, 0, false, false), ' -3'],
    // Zero, and a fraction only.
    [0, fmt(3, 0, false, false), '  0'],
    [0.5, fmt(5, 2, true, false), ' 0.50'],
    [0.05, fmt(4, 2, false, true), '0005'],
    // CSPro's special doubles are specials.
    [1e51, fmt(3, 0, false, true), '   '],
    [1e50, fmt(3, 0, false, true), '***'],
  ];
  for (const [value, layout, expected] of table) {
    it(`${value} as ${JSON.stringify(layout)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(encodeNumericText(value as never, layout), expected);
    });
  }

  it('round-trips every value of a 3-digit item with 1 implied decimal', () => {
    const layout = fmt(3, 1, false, true);
    for (let n = 0; n <= 999; n++) {
      const text = encodeNumericText(n / 10, layout);
      assert.equal(text, String(n).padStart(3, '0'));
      assert.equal(decodeNumericText(text, 1), n / 10);
    }
  });
});

describe('special helpers', () => {
  it('maps CSPro special doubles to names', () => {
    assert.equal(fromStoredDouble(1e50), 'MISSING');
    assert.equal(fromStoredDouble(1e51), 'NOTAPPL');
    assert.equal(fromStoredDouble(1e52), 'DEFAULT');
    assert.equal(fromStoredDouble(1e55), 'REFUSED');
    assert.equal(fromStoredDouble(1e53), 'DEFAULT');
    assert.equal(fromStoredDouble(-4.5), -4.5);
  });
  it('knows the four special names exactly', () => {
    assert.deepEqual(['MISSING', 'NOTAPPL', 'DEFAULT', 'REFUSED', 'missing', 'X'].map(isSpecialName), [
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
