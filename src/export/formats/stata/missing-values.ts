/**
 * Stata's missing values (docs/export.md#stata): system missing `.` and the extended missing
 * values `.a`–`.z`, one encoding per storage type. CSPro special values get fixed letters so that
 * every export of every dictionary reads the same way. Pure.
 */
import type { SpecialName } from '../../../cspro/dictionary/model.js';

/** Letter number of each CSPro special value: 1 is `.a`, 2 `.b`, … (0 is `.`, system missing). */
export const SPECIAL_LETTER: Readonly<Record<SpecialName, number>> = {
  MISSING: 1,
  REFUSED: 2,
  DEFAULT: 3,
  NOTAPPL: 4,
};

/** `.` as a byte, int and long; `.a` is one more, up to `.z` at +26. */
export const MISSING_BYTE = 101;
export const MISSING_INT = 32741;
export const MISSING_LONG = 2147483621;

/** Largest value of each integer type that is not a missing value (the smallest is −max−1+1). */
export const BYTE_RANGE = { min: -127, max: 100 } as const;
export const INT_RANGE = { min: -32767, max: 32740 } as const;
export const LONG_RANGE = { min: -2147483647, max: 2147483620 } as const;

/**
 * The high 32 bits of the double for `.` (letter 0) or `.a`… (letter 1…): 0x7fe0_0000 plus the
 * letter in bits 40–47 of the whole double; the low 32 bits are zero.
 */
export function missingDoubleHigh(letter: number): number {
  return 0x7fe00000 + letter * 0x100;
}

/** The value a value-label table uses for an extended missing value (the long encoding). */
export function missingLabelValue(letter: number): number {
  return MISSING_LONG + letter;
}
