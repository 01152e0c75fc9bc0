/**
 * The rights an account's role may hold, named as CSWeb 8.1 names them, plus sds's own in the same
 * dotted style, and the rights of the four built-in roles (docs/supervision.md#roles-and-rights).
 * Pure data: which route or command needs which right is in docs/supervision.md#rights-by-route-and-command.
 */

/** Rights CSWeb 8.1 defines (`cspro_permissions`), `data.none` aside: that one is a marker, never held. */
export const CSWEB_RIGHTS = [
  'data.read',
  'data.write',
  'data.clear',
  'data.clear.dashboard',
  'apps.read',
  'apps.write',
  'users.read',
  'users.write',
  'roles.read',
  'roles.write',
  'reports.read',
  'reports.write',
  'settings.read',
  'settings.write',
  'paradata.read',
  'paradata.write',
  'dictionaries.read',
  'dictionaries.write',
  'messages.read',
  'messages.write',
  'files.read',
  'files.write',
  'login',
] as const;

/** Rights of sds's own: what sds does that CSWeb does not, or splits finer than CSWeb does. */
export const SDS_RIGHTS = [
  'data.delete',
  'data.export',
  'dictionaries.delete',
  'files.sync',
  'breakout.read',
  'breakout.run',
  'breakout.drop',
  'webhooks.manage',
  'scheduler.manage',
  // Who changed what and who logged in (docs/supervision.md#audit-trail): the office's supervision.
  'audit.read',
] as const;

export type Right = (typeof CSWEB_RIGHTS)[number] | (typeof SDS_RIGHTS)[number];

/** Every right, in the order lists show them. */
export const RIGHTS: readonly Right[] = [...CSWEB_RIGHTS, ...SDS_RIGHTS];

/** The per-dictionary marker of CSWeb 8.1: "nothing on this dictionary". */
export const DATA_NONE = 'data.none';

/**
 * Rights that apply to one dictionary at a time: the ones a per-dictionary row may give or take.
 * Every other right is the role's, whatever the dictionary.
 */
export const DICTIONARY_RIGHTS: ReadonlySet<Right> = new Set<Right>([
  'data.read',
  'data.write',
  'data.delete',
  'data.clear',
  'data.clear.dashboard',
  'data.export',
  'breakout.read',
  'breakout.run',
  'breakout.drop',
]);

/** The names of the built-in roles. */
export const STANDARD_USER = 'Standard User';
export const ADMINISTRATOR = 'Administrator';
const DEVELOPER = 'Developer';
const API_ROLE = 'API';

/** What sds before roles (0.x, migration 0030 and older) named the field account's role. */
export const OLD_STANDARD = 'Standard';

const STANDARD_USER_RIGHTS: readonly Right[] = [
  'dictionaries.read',
  'data.read',
  'data.write',
  'files.read',
  'files.sync',
  'apps.read',
  'messages.write',
  'paradata.read',
  'paradata.write',
];

/**
 * The rights of each built-in role. Standard User, API and Administrator hold exactly what sds's
 * Standard, API and Administrator roles could do before roles were added (docs/decisions.md,
 * "Roles and rights as CSWeb 8.1 has them (issue 30)"); Developer is CSWeb 8.1's, without sds's
 * destroying rights. Fixed here, not in the store: an upgrade cannot change them.
 */
export const BUILTIN_ROLES: Readonly<Record<string, readonly Right[]>> = {
  [STANDARD_USER]: STANDARD_USER_RIGHTS,
  [API_ROLE]: [
    ...STANDARD_USER_RIGHTS,
    'dictionaries.write',
    'data.delete',
    'data.clear',
    'data.export',
    'files.write',
    'apps.write',
    'messages.read',
    'breakout.read',
    'breakout.run',
    // Who synced what and the area names (docs/supervision.md#sync-history-and-reports): for an
    // office's integration, not a field account, which would see every device.
    'reports.read',
    'reports.write',
  ],
  [DEVELOPER]: [
    'data.read',
    'data.write',
    'data.clear.dashboard',
    'data.export',
    'apps.read',
    'apps.write',
    'users.read',
    'users.write',
    'reports.read',
    'reports.write',
    'settings.read',
    'settings.write',
    'paradata.read',
    'paradata.write',
    'dictionaries.read',
    'dictionaries.write',
    'messages.read',
    'messages.write',
    'files.read',
    'files.write',
    'files.sync',
    'login',
    'breakout.read',
    'breakout.run',
  ],
  [ADMINISTRATOR]: RIGHTS,
};

/** True for a name of the catalogue. */
export function isRight(name: string): name is Right {
  return (RIGHTS as readonly string[]).includes(name);
}

/** True for one of the four built-in roles. */
export function isBuiltinRole(name: string): boolean {
  return Object.hasOwn(BUILTIN_ROLES, name);
}

/** The catalogue's order of a set of rights, for stable lists. */
export function sortRights(rights: Iterable<Right>): Right[] {
  const set = new Set(rights);
  return RIGHTS.filter((r) => set.has(r));
}
