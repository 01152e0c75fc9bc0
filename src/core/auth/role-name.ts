import type { Role } from '../../store/users-repo.js';

/**
 * The role a role name of a CSV import means (docs/supervision.md#accounts): sds's own names and
 * CSWeb's, compared without case and surrounding spaces as CSWeb's MySQL compares them. The one
 * place that maps names to roles for the import: roles of CSWeb 8.1 will re-point it.
 */
export function roleFromName(name: string): Role | undefined {
  return ROLE_NAMES.get(name.trim().toLowerCase());
}

/** The names `roleFromName` accepts, as an error message lists them. */
export const ROLE_NAME_CHOICES = ['Standard User', 'Standard', 'API', 'Administrator'] as const;

const ROLE_NAMES: ReadonlyMap<string, Role> = new Map([
  ['standard user', 'Standard'],
  ['standard', 'Standard'],
  ['api', 'API'],
  ['administrator', 'Administrator'],
]);
