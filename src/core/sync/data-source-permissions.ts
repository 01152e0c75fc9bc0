import type { Right } from '../auth/index.js';

/** The data source's permission strings, as the CSPro 8.1 client reads them from the metadata. */
export type DataPermission = 'data' | 'data.read' | 'data.write' | 'data.clear' | 'data.none';

/**
 * What the CSPro 8.1 data source may do with a dictionary, in its words, from the account's
 * effective rights on that dictionary (docs/sync.md#permissions-of-the-data-source): `data.read`,
 * `data.write` and `data.clear` as held; all three are the single `data`, none `data.none` (the
 * client wants each of those two alone). Pure.
 */
export function dataSourcePermissions(rights: ReadonlySet<Right>): DataPermission[] {
  const held = (['data.read', 'data.write', 'data.clear'] as const).filter((r) => rights.has(r));
  if (held.length === 3) return ['data'];
  return held.length === 0 ? ['data.none'] : [...held];
}
