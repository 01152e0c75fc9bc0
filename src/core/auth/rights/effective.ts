/**
 * The rights an account has on a dictionary: its role's defaults, replaced for the dictionary
 * rights by the role's rows for that dictionary when it has any (docs/supervision.md#roles-and-rights).
 */
import type { StoreScope } from '../../../store/store-contract.js';
import type { RoleGrant } from '../../../store/roles-repo.js';
import { AppError } from '../../../shared/errors.js';
import { ADMINISTRATOR, BUILTIN_ROLES, DICTIONARY_RIGHTS, RIGHTS, isRight, sortRights, type Right } from './catalogue.js';

/** What a role holds, as read from the code (built-in roles) and the store. */
export interface RoleRights {
  role: string;
  /** False when no such role exists (removed since the token was issued): it holds nothing. */
  exists: boolean;
  defaults: readonly Right[];
  /** Per-dictionary rows by dictionary name; an empty list is `data.none`, nothing on it. */
  dictionaries: ReadonlyMap<string, readonly Right[]>;
}

/**
 * The effective rights of `r` on `dictionary`, pure. Administrator holds every right everywhere.
 * With rows for the dictionary, they replace the role's dictionary rights there (its other rights
 * stay); without, the defaults hold. Without a dictionary (a route that names none, such as
 * `GET /api/server`), a dictionary right is held when the role holds it by default or on any
 * dictionary: the route then touches no one dictionary's cases.
 */
export function resolveRights(r: RoleRights, dictionary?: string): Set<Right> {
  if (!r.exists) return new Set();
  if (r.role === ADMINISTRATOR) return new Set(RIGHTS);
  const global = r.defaults.filter((x) => !DICTIONARY_RIGHTS.has(x));
  if (dictionary === undefined) {
    const anywhere = [...r.dictionaries.values()].flat();
    return new Set([...r.defaults, ...anywhere]);
  }
  const rows = r.dictionaries.get(dictionary);
  if (rows === undefined) return new Set(r.defaults);
  return new Set([...global, ...rows.filter((x) => DICTIONARY_RIGHTS.has(x))]);
}

/** Reads what role `role` holds: the code's rights for a built-in role, the store's for a custom one, and its per-dictionary rows. */
export async function readRoleRights(store: StoreScope, role: string): Promise<RoleRights> {
  // One statement: every request of every account runs it (docs/decisions.md, "Roles and rights as CSWeb 8.1 has them (issue 30)").
  return roleRightsOf(role, await store.roles.grant(role));
}

/** What role `role` holds, from its grant as the store returned it (undefined: no such role). */
function roleRightsOf(role: string, grant: RoleGrant | undefined): RoleRights {
  if (!grant) return { role, exists: false, defaults: [], dictionaries: new Map() };
  const known = (names: readonly string[]) => names.filter(isRight);
  return {
    role,
    exists: true,
    defaults: grant.builtin ? (BUILTIN_ROLES[role] ?? []) : sortRights(known(grant.defaults)),
    dictionaries: new Map(grant.dictionaries.map((d) => [d.dictionary, sortRights(known(d.rights))])),
  };
}

/**
 * The rights `account` has on `dictionary` (or, without one, anywhere), read from the store now:
 * a change of a role's rights applies to the next request of its accounts, with no new login.
 */
export async function effectiveRights(
  store: StoreScope,
  account: { role: string; grant?: RoleGrant },
  dictionary?: string,
): Promise<Set<Right>> {
  // An authenticated request's principal carries the grant read with its account (access-tokens.ts).
  const r = 'grant' in account ? roleRightsOf(account.role, account.grant) : await readRoleRights(store, account.role);
  // Rows are kept under the dictionary's own name; a request may name it by its syncable name
  // (docs/sync.md#syncable-names). Looked up only when the role has rows at all.
  const own =
    dictionary !== undefined && r.dictionaries.size > 0 ? ((await store.dictionaries.resolve(dictionary))?.name ?? dictionary) : dictionary;
  return resolveRights(r, own);
}

/**
 * The dictionaries (own names) on which `account`'s role has `data.none`, nothing at all: a
 * dictionary list leaves them out, as CSWeb 8.1 shows a role only what it may use
 * (docs/supervision.md#roles-and-rights).
 */
export async function dictionariesWithNothing(store: StoreScope, account: { role: string; grant?: RoleGrant }): Promise<Set<string>> {
  const r = 'grant' in account ? roleRightsOf(account.role, account.grant) : await readRoleRights(store, account.role);
  if (r.role === ADMINISTRATOR) return new Set();
  return new Set([...r.dictionaries].flatMap(([name, rights]) => (rights.length === 0 ? [name] : [])));
}

/** Fails with AUTH-004 (HTTP 403 `access_denied`) when `rights` lack `right`; the message names the role, the right and the dictionary. */
export function requireRight(rights: ReadonlySet<Right>, right: Right, role: string, dictionary?: string): void {
  if (rights.has(right)) return;
  const where = dictionary === undefined ? '' : ` on dictionary ${dictionary}`;
  throw new AppError('AUTH-004', `the ${role} role may not do this${where} (needs ${right})`, {
    oauth_error: 'access_denied',
    permission: right,
    ...(dictionary === undefined ? {} : { dictionary }),
  });
}
