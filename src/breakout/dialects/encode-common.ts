import { targetText } from '../target-text.js';

/**
 * Value conversions shared by the dialect encoders. The flattener writes integers as numbers
 * (or digit strings beyond 2^53), decimals as numbers or strings, booleans as booleans and
 * timestamps as ISO 8601 UTC strings (plan-model.ts); these helpers accept all of those.
 */

/**
 * A text cell (varchar or text column) as every target stores it: lone surrogates as U+FFFD,
 * NUL dropped (target-text.ts). Every dialect's text encoder and text parameter goes through it,
 * so rows that do not come from the flattener follow the same rule.
 */
export function textValue(v: string | number | boolean): string {
  return targetText(String(v));
}

/** Integer as digits. Strings are passed through (already digits, possibly beyond 2^53). */
export function integerText(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  return typeof v === 'number' ? String(v) : v;
}

/** Decimal with its column scale: numbers are formatted with toFixed (12.5 -> "12.50"), strings passed through. */
export function decimalText(v: string | number | boolean, scale: number): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  return typeof v === 'number' ? v.toFixed(scale) : v;
}

/** Truthiness of a boolean cell (accepts true/false, 1/0, '1'/'0', 't'/'f', 'true'/'false'). */
export function booleanValue(v: string | number | boolean): boolean {
  return v === true || v === 1 || v === '1' || v === 't' || v === 'true';
}

const ISO_UTC = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d(?:\.\d{1,6})?)Z$/;

/** `YYYY-MM-DD HH:MM:SS.fff` in UTC, for databases whose datetime type has no zone. */
export function utcDateTimeText(v: string | number | boolean): string {
  const s = String(v);
  const m = ISO_UTC.exec(s);
  if (m) return `${m[1]} ${m[2]}`;
  const iso = new Date(s).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}
