import type { Dictionary } from './model.js';

/**
 * The key structure string the CSPro 8.1 data source compares with its own before it uses a
 * dictionary on the server (docs/sync.md#the-81-data-source): for each id item of the first level,
 * in order, its length, its content type as the JSON dictionary writes it (`numeric`, `alpha`)
 * and, for a numeric item only, `1` or `0` for zero fill. Two ids (numeric, 2, zero-filled) and
 * (alpha, 5) give `2numeric15alpha`. Pure.
 */
export function dictionaryKeyStructure(dict: Pick<Dictionary, 'levels'>): string {
  const ids = dict.levels[0]?.ids ?? [];
  return ids
    .map((item) => `${item.length}${item.contentType}${item.contentType === 'numeric' ? (item.zeroFill ? '1' : '0') : ''}`)
    .join('');
}
