/**
 * Sheet names of an Excel export (docs/export.md#excel): Excel takes at most 31 characters, none of
 * `[ ] : * ? / \`, not beginning or ending with an apostrophe, unique ignoring case, and keeps
 * `History` for itself. Pure and deterministic: the same tables give the same names.
 */
import { shortenIdentifier } from '../../../breakout/shorten-identifier.js';

/** Longest sheet name Excel accepts, in characters. */
export const MAX_SHEET_NAME = 31;

/** The characters Excel refuses in a sheet name, and control characters. */
const FORBIDDEN = /[[\]:*?/\\\p{Cc}]/gu;

/** One sheet name before uniqueness: forbidden characters as `_`, shortened as export names are. */
function sheetBaseName(name: string): string {
  let s = name.replace(FORBIDDEN, '_').replace(/^'+|'+$/g, (m) => '_'.repeat(m.length));
  if (s === '') s = 'sheet';
  if (s.toLowerCase() === 'history') s = `${s}_`;
  return shortenIdentifier(s, MAX_SHEET_NAME);
}

/**
 * The sheet name of each of `names` (in order), none equal ignoring case to another or to one of
 * `taken` (names already used, e.g. `codebook`): a name already used gets `_2`, `_3`, … with its
 * head cut to stay within 31 characters.
 */
export function sheetNames(names: readonly string[], taken: readonly string[] = []): string[] {
  const used = new Set(taken.map((t) => t.toLowerCase()));
  return names.map((n) => {
    const base = sheetBaseName(n);
    let name = base;
    for (let i = 2; used.has(name.toLowerCase()); i++) {
      const suffix = `_${i}`;
      name = base.slice(0, MAX_SHEET_NAME - suffix.length) + suffix;
    }
    used.add(name.toLowerCase());
    return name;
  });
}
