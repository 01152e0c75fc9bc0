/**
 * Exact decimal arithmetic for Parquet DECIMAL columns (docs/export.md#parquet): a cell (a number
 * or a numeric string) becomes the unscaled integer `value × 10^scale` without going through
 * floating-point multiplication, so `1.005` at scale 2 is 101, not 100.
 */

const NUMERIC = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The unscaled value of `value` at `scale`, rounded half away from zero when it has more
 * fraction digits than the scale (as PostgreSQL's numeric does); undefined when `value` is not a
 * finite decimal number.
 */
export function toUnscaled(value: number | string, scale: number): bigint | undefined {
  if (typeof value === 'number') {
    // Fast path: the scaled value is a safe integer that maps back to exactly this number.
    const factor = 10 ** scale;
    const scaled = Math.round(value * factor);
    if (Number.isSafeInteger(scaled) && scaled / factor === value) return BigInt(scaled);
  }
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = NUMERIC.exec(text);
  if (!m) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = m;
  if (whole === '' && fraction === '') return undefined;
  const digits = whole + fraction;
  // digits × 10^(exponent − fraction digits + scale)
  const shift = Number(exponent) - fraction.length + scale;
  let unscaled: bigint;
  if (shift >= 0) {
    unscaled = BigInt(digits + '0'.repeat(shift));
  } else {
    const keep = digits.length + shift;
    const kept = keep > 0 ? BigInt(digits.slice(0, keep)) : 0n;
    const firstDropped = keep >= 0 ? Number(digits[keep] ?? '0') : 0;
    unscaled = firstDropped >= 5 ? kept + 1n : kept;
  }
  return sign === '-' ? -unscaled : unscaled;
}

/** The text of an unscaled value at `scale`, e.g. `-1234n` at 2 → `-12.34`. */
export function formatUnscaled(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** 10^precision as a bigint: the first magnitude a DECIMAL(precision, s) cannot hold. */
export function decimalLimit(precision: number): bigint {
  return 10n ** BigInt(precision);
}

/** Bytes of the two's-complement FIXED_LEN_BYTE_ARRAY that holds any DECIMAL of `precision`. */
export function decimalByteLength(precision: number): number {
  return Math.ceil((precision * Math.log2(10) + 1) / 8);
}
