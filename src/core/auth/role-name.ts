import type { Role } from '../../store/users-repo.js';

/**
 * The role a role name of a CSV import means (docs/supervision.md#accounts): one of `roles`, the
 * store's roles, compared without case and surrounding spaces as CSWeb's MySQL compares them, or
 * `Standard`, the name sds gave Standard User before roles (docs/supervision.md#roles-and-rights).
 */
export function roleFromName(name: string, roles: readonly string[]): Role | undefined {
  const wanted = name.trim().toLowerCase();
  if (wanted === 'standard') return 'Standard User';
  return roles.find((r) => r.toLowerCase() === wanted);
}
