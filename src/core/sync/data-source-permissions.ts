import type { Role } from '../../store/users-repo.js';
import { can } from '../auth/index.js';

/** The data source's permission strings, as the CSPro 8.1 client reads them from the metadata. */
export type DataPermission = 'data' | 'data.read' | 'data.write' | 'data.clear' | 'data.none';

/**
 * What the CSPro 8.1 data source may do with a dictionary, in its words, from the account's role
 * (docs/sync.md#permissions-of-the-data-source): `data.read` is `cases.read`, `data.write` is
 * `cases.write`, `data.clear` is `cases.clear`; all three are the single `data`, none `data.none`
 * (the client wants each of those two alone). Pure.
 */
export function dataSourcePermissions(role: Role): DataPermission[] {
  const held: DataPermission[] = [];
  if (can(role, 'cases.read')) held.push('data.read');
  if (can(role, 'cases.write')) held.push('data.write');
  if (can(role, 'cases.clear')) held.push('data.clear');
  if (held.length === 3) return ['data'];
  return held.length === 0 ? ['data.none'] : held;
}
