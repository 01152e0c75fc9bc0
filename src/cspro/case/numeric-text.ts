/**
 * Fixed-width numeric text <-> value, exactly as CSPro's NumberConverter does it
 * (docs/cspro-formats.md#numeric-text). CSWeb's own parser differs (it ignores implied decimals
 * when the decimal mark is on, and throws on `***`); we follow CSPro because CSPro wrote the data.
 *
 * A value is a number or one of the special names. NOTAPPL is the blank value.
 */

import type { SpecialName } from '../dictionary/model.js';

export type NumericValue = number | SpecialName;

/** The parts of an item that decide how its numeric text looks. `DictItem` satisfies it. */
export interface NumericLayout {
  length: number;
  decimals: number;
  decimalMark: boolean;
  zeroFill: boolean;
}

/** CSPro's internal special values; anything ≥ 1e50 is special (`cspro/zToolsO/Special.cpp`). */
const SPECIAL_DOUBLES: Readonly<Record<SpecialName, number>> = {
  MISSING: 1e50,
  NOTAPPL: 1e51,
  DEFAULT: 1e52,
  REFUSED: 1e55,
};

const SPECIAL_NAMES: readonly SpecialName[] = ['MISSING', 'NOTAPPL', 'DEFAULT', 'REFUSED'];

/** True when `s` is one of the four special names (exact, upper case). */
export function isSpecialName(s: unknown): s is SpecialName {
  return typeof s === 'string' && (SPECIAL_NAMES as readonly string[]).includes(s);
}

/**
 * Maps a stored double to a value: CSPro's special doubles (≥ 1e50, as found in `.csdb` files)
 * become their special name; 1e50 MISSING, 1e51 NOTAPPL, 1e52 DEFAULT, 1e55 REFUSED, any other
 * huge value DEFAULT.
 */
export function fromStoredDouble(value: number): NumericValue {
  if (!Number.isFinite(value)) return 'DEFAULT';
  if (Math.abs(value) < 1e50) return value;
  for (const name of SPECIAL_NAMES) if (SPECIAL_DOUBLES[name] === value) return name;
  return 'DEFAULT';
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/**
 * Decodes one numeric field (docs/cspro-formats.md#numeric-text). `field` must be the item's full width: the caller pads a
 * short line with spaces, because a trailing space inside the field makes the value invalid.
 * Blank → NOTAPPL; a sign with nothing after it or any stray character → DEFAULT. With
 * `decimals` > 0 and no `.`/`,` in the text the decimals are implied, even when the item has a
 * decimal mark (CSPro does this, CSWeb does not). An integer item with a mark is still read as a
 * fraction (CSPro's legacy tolerance).
 *
 * The number is built from its decimal string, so `38.922705` reads as the double nearest to
 * 38.922705 (CSPro adds the fraction separately and can differ in the last bit).
 */
export function decodeNumericText(field: string, decimals: number): NumericValue {
  const n = field.length;
  let i = 0;
  while (i < n && field.charCodeAt(i) === 32) i++;
  if (i === n) return 'NOTAPPL';
  if (decimals === 0 && n - i <= 15) {
    // Fast path for the common case, a plain unsigned integer: no string building. Fifteen
    // digits stay exact in a double; anything else takes the general path below.
    let value = 0;
    let j = i;
    for (; j < n; j++) {
      const d = field.charCodeAt(j) - 48;
      if (d < 0 || d > 9) break;
      value = value * 10 + d;
    }
    if (j === n) return value;
  }

  let negative = false;
  const signChar = field[i];
  if (signChar === '-' || signChar === '+') {
    negative = signChar === '-';
    i++;
    while (i < n && field[i] === ' ') i++;
    if (i === n) return 'DEFAULT';
  }

  let intDigits = '';
  let fraction: string | undefined;
  for (; i < n; i++) {
    const c = field[i] as string;
    if (c === '.' || c === ',') {
      fraction = '';
      i++;
      break;
    }
    if (!isDigit(c)) return 'DEFAULT';
    intDigits += c;
  }
  if (fraction !== undefined) {
    for (; i < n; i++) {
      const c = field[i] as string;
      if (!isDigit(c)) return 'DEFAULT';
      fraction += c;
    }
  }

  let text: string;
  if (fraction !== undefined) {
    text = `${intDigits || '0'}.${fraction || '0'}`;
  } else if (decimals > 0) {
    const digits = intDigits.padStart(decimals + 1, '0');
    text = `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  } else {
    text = intDigits;
  }
  const value = Number(text);
  // `-0` and `0` are the same value in CSPro; keep JSON and deep-equality free of -0.
  if (value === 0) return 0;
  return negative ? -value : value;
}

/** The digits of a non-negative integer right-aligned in `width`, or undefined when they don't fit. */
function integerToText(intValue: number, width: number, zeroFill: boolean, negative: boolean): string | undefined {
  // String() switches to exponent notation at 1e21, far beyond the 15 digits CSPro allows.
  if (intValue >= 1e21) return undefined;
  const digits = String(intValue);
  if (digits.length > width) return undefined;
  if (digits.length === width) return negative ? undefined : digits;
  if (!negative) return digits.padStart(width, zeroFill ? '0' : ' ');
  // With zero fill the sign takes the first column (`-0012`); without, it sits before the digits.
  return zeroFill ? `-${digits.padStart(width - 1, '0')}` : `-${digits}`.padStart(width, ' ');
}

const MAGIC_ROUND = 0.5000000001;

/**
 * Encodes a value as fixed-width numeric text (`NumberConverter::DoubleToText`): NOTAPPL →
 * spaces; other specials, a value that does not fit or a sign without room → all `*`. Rounds half
 * up. With a decimal mark the integer part gets `length − decimals − 1` columns, then `.`, then
 * the zero-filled fraction; without it the fraction digits follow the integer part directly.
 * Map a special to its value-set code before calling this (see item-codec.ts).
 */
export function encodeNumericText(value: NumericValue, layout: NumericLayout): string {
  const { length, decimals, decimalMark, zeroFill } = layout;
  const fail = (special: boolean) => (special ? ' ' : '*').repeat(length);
  if (typeof value === 'string') return fail(value === 'NOTAPPL');
  if (!Number.isFinite(value) || Math.abs(value) >= 1e50) return fail(fromStoredDouble(value) === 'NOTAPPL');

  const negative = value < 0;
  let abs = Math.abs(value);
  if (decimals === 0) {
    return integerToText(Math.floor(abs + MAGIC_ROUND), length, zeroFill, negative) ?? fail(false);
  }
  const scale = 10 ** decimals;
  abs += MAGIC_ROUND / scale;
  const intPart = Math.trunc(abs);
  const fractionPart = abs - intPart;
  const intWidth = length - decimals - (decimalMark ? 1 : 0);
  const intText = intWidth > 0 ? integerToText(intPart, intWidth, zeroFill, negative) : undefined;
  if (intText === undefined) return fail(false);
  const fractionText = String(Math.floor(fractionPart * scale)).padStart(decimals, '0');
  return intText + (decimalMark ? '.' : '') + fractionText;
}
