/**
 * Export names (docs/export.md#names): every column of an exported table gets a name that every
 * format accepts as it is — `^[a-z_][a-z0-9_]*$`, at most 32 characters (Stata's limit, SPSS's is
 * 64), unique in its table ignoring case, never a Stata or SPSS reserved word. Pure and
 * deterministic: the same dictionary gives the same names on every run and every machine.
 */
import { shortenIdentifier } from '../breakout/shorten-identifier.js';

/** Longest export name, in characters (Stata's variable name limit). */
export const MAX_EXPORT_NAME = 32;

/** Stata's reserved names (`str1` … `str2045` are matched separately), lower-cased. */
const STATA_RESERVED = [
  '_all',
  '_b',
  'byte',
  '_coef',
  '_cons',
  'double',
  'float',
  'if',
  'in',
  'int',
  'long',
  '_n',
  '_pi',
  '_pred',
  '_rc',
  '_skip',
  'strl',
  'using',
  'with',
];
/** SPSS's reserved keywords, lower-cased (SPSS compares names ignoring case). */
const SPSS_RESERVED = ['all', 'and', 'by', 'eq', 'ge', 'gt', 'le', 'lt', 'ne', 'not', 'or', 'to', 'with'];
const RESERVED = new Set([...STATA_RESERVED, ...SPSS_RESERVED]);
const STATA_STR = /^str(\d{1,4})$/;

/** True when `name` (any case) is reserved by Stata or SPSS. */
export function isReservedName(name: string): boolean {
  const lower = name.toLowerCase();
  if (RESERVED.has(lower)) return true;
  const m = STATA_STR.exec(lower);
  if (!m) return false;
  const n = Number(m[1]);
  return m[1]![0] !== '0' && n >= 1 && n <= 2045;
}

/**
 * The export form of one name, before uniqueness: lower case, every character outside
 * `[a-z0-9_]` as `_`, a leading digit behind `_`, a reserved word followed by `_`, then shortened
 * to 32 characters the way the breakout shortens identifiers (head, `_`, 8 hex digits of the
 * SHA-256 of the whole name).
 */
export function exportBaseName(source: string): string {
  let name = source.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (name === '') name = '_';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (isReservedName(name)) name = `${name}_`;
  return shortenIdentifier(name, MAX_EXPORT_NAME);
}

/**
 * The names of one table, handed out in column order. A name already taken (ignoring case) gets
 * `_2`, `_3`, … (its head cut to stay within 32 characters), so the first column keeps its
 * natural name and the result depends only on the order of the columns.
 */
export class ExportNames {
  private readonly taken = new Set<string>();

  /** Claims the export name of `source`. */
  claim(source: string): string {
    const base = exportBaseName(source);
    let name = base;
    for (let n = 2; this.taken.has(name) || isReservedName(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_EXPORT_NAME - suffix.length) + suffix;
    }
    this.taken.add(name);
    return name;
  }
}
