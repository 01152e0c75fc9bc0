/**
 * The role use cases of `sds roles` and the roles routes (docs/supervision.md#roles-and-rights):
 * list, show, add and remove roles, and set a role's default or per-dictionary rights.
 */
import type { StoreScope } from '../../../store/store-contract.js';
import { AppError } from '../../../shared/errors.js';
import { requireDictionaryRow } from '../../dictionaries/index.js';
import {
  ADMINISTRATOR,
  DATA_NONE,
  DICTIONARY_RIGHTS,
  OLD_STANDARD,
  RIGHTS,
  STANDARD_USER,
  isBuiltinRole,
  isRight,
  sortRights,
  type Right,
} from './catalogue.js';
import { readRoleRights } from './effective.js';

/** A role as operators and scripts see it. */
export interface RoleView {
  name: string;
  builtin: boolean;
  /** Its default rights: what it holds on a dictionary without rows, and every right that is not a dictionary's. */
  rights: Right[];
  /** Its per-dictionary rows; `["data.none"]` is nothing on that dictionary. */
  dictionaries: { dictionary: string; rights: string[] }[];
  /** How many accounts have it. */
  accounts: number;
  created_at: string;
  updated_at: string;
}

/** A role with the names of its accounts. */
export interface RoleDetail extends RoleView {
  account_names: string[];
}

const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

async function view(store: StoreScope, name: string): Promise<RoleDetail> {
  const row = await store.roles.find(name);
  if (!row)
    throw roleNotFound(
      name,
      (await store.roles.list()).map((r) => r.name),
    );
  const rights = await readRoleRights(store, name);
  const stored = await store.roles.rights(name);
  const holders = await store.roles.holders(name);
  return {
    name,
    builtin: row.builtin,
    rights: [...rights.defaults],
    dictionaries: stored.dictionaries.map((d) => ({
      dictionary: d.dictionary,
      rights: d.rights.includes(DATA_NONE) ? [DATA_NONE] : sortRights(d.rights.filter(isRight)),
    })),
    accounts: holders.length,
    account_names: holders,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function roleNotFound(name: string, known: string[]): AppError {
  const near = known.filter((k) => k.toLowerCase() === name.toLowerCase());
  const hint = near.length ? ` (role names are case-sensitive; did you mean ${near.join(', ')}?)` : ` (roles: ${known.join(', ')})`;
  return new AppError('ROLE_NOT_FOUND', `role ${name} does not exist${hint}`, { role: name });
}

/**
 * The stored name of role `name`, refused with ROLE_NOT_FOUND when there is none. `Standard`, the
 * name sds gave the field role before roles, still names Standard User, so scripts written for an
 * older sds keep working (docs/supervision.md#roles-and-rights).
 */
export async function requireRoleName(store: StoreScope, name: string): Promise<string> {
  const wanted = name === OLD_STANDARD ? STANDARD_USER : name;
  if (await store.roles.find(wanted)) return wanted;
  throw roleNotFound(
    name,
    (await store.roles.list()).map((r) => r.name),
  );
}

/** Every role, by name, with its rights and how many accounts have it. */
export async function listRoles(store: StoreScope): Promise<RoleView[]> {
  const out: RoleView[] = [];
  for (const r of await store.roles.list()) {
    const { account_names: _names, ...rest } = await view(store, r.name);
    out.push(rest);
  }
  return out;
}

/** One role, with its rights, per-dictionary rows and the names of its accounts. */
export async function showRole(store: StoreScope, name: string): Promise<RoleDetail> {
  return view(store, await requireRoleName(store, name));
}

/**
 * Parses a list of rights (names, or one `data.none`). With `dictionary`, only the rights of one
 * dictionary may be named (docs/supervision.md#roles-and-rights); `data.none` stands alone.
 */
export function parseRights(input: string | readonly string[], scope: 'defaults' | 'dictionary'): string[] {
  const names = (typeof input === 'string' ? input.split(',') : [...input]).map((n) => n.trim()).filter((n) => n !== '');
  if (names.length === 0)
    throw new AppError('RIGHT_UNKNOWN', 'no rights given: name at least one right, or data.none for none', { rights: '' });
  if (names.includes(DATA_NONE)) {
    if (names.length > 1)
      throw new AppError('RIGHT_UNKNOWN', `${DATA_NONE} means no rights: it cannot be given with others`, { rights: names.join(',') });
    return [DATA_NONE];
  }
  const unknown = names.filter((n) => !isRight(n));
  if (unknown.length) {
    throw new AppError('RIGHT_UNKNOWN', `unknown right ${unknown.join(', ')}; rights are ${RIGHTS.join(', ')} and ${DATA_NONE}`, {
      rights: unknown.join(','),
    });
  }
  if (scope === 'dictionary') {
    const global = names.filter((n) => !DICTIONARY_RIGHTS.has(n as Right));
    if (global.length) {
      throw new AppError(
        'RIGHT_UNKNOWN',
        `${global.join(', ')} ${global.length > 1 ? 'are' : 'is'} not a right of one dictionary; a dictionary's rows may hold ${[...DICTIONARY_RIGHTS].join(', ')} or ${DATA_NONE}`,
        { rights: global.join(',') },
      );
    }
  }
  return sortRights(names as Right[]);
}

/** Adds a custom role, with `rights` as its defaults (none when omitted). CONFLICT when the name is taken, whatever its case. */
export async function addRole(store: StoreScope, name: string, rights?: string | readonly string[]): Promise<RoleDetail> {
  if (!ROLE_NAME.test(name) || name === OLD_STANDARD) {
    throw new AppError(
      'USAGE',
      name === OLD_STANDARD
        ? `${OLD_STANDARD} is the old name of ${STANDARD_USER}; choose another name`
        : `role name "${name}" is not valid: 1-64 letters, digits, spaces, ., _ or -, starting with a letter or digit`,
      { field: 'role' },
    );
  }
  const defaults = rights === undefined ? [] : parseRights(rights, 'defaults').filter((r) => r !== DATA_NONE);
  return store.transaction(async (tx) => {
    const same = await tx.roles.findIgnoringCase(name);
    if (same.length) throw new AppError('CONFLICT', `role ${same[0]!.name} already exists`, { role: same[0]!.name });
    await tx.roles.insert(name);
    if (defaults.length) await tx.roles.setDefaults(name, defaults);
    return view(tx, name);
  });
}

/** What removing a role did: the accounts it moved to Standard User. */
export interface RoleRemoved {
  role: string;
  moved_to: typeof STANDARD_USER;
  accounts: string[];
  message: string;
}

/**
 * Removes a custom role and its rights. Its accounts get Standard User, as in CSWeb, in the same
 * transaction, and their tokens end (docs/http-api.md#what-ends-a-token). Built-in roles are
 * never removed (ROLE_BUILTIN).
 */
export async function removeRole(store: StoreScope, name: string): Promise<RoleRemoved> {
  const role = await requireRoleName(store, name);
  if (isBuiltinRole(role)) throw builtin(role, 'removed');
  return store.transaction(async (tx) => {
    const accounts = await tx.roles.holders(role);
    await tx.roles.moveHolders(role, STANDARD_USER);
    if (!(await tx.roles.remove(role))) throw roleNotFound(role, []);
    const moved = accounts.length
      ? `; ${accounts.length} account${accounts.length > 1 ? 's' : ''} moved to ${STANDARD_USER}: ${accounts.join(', ')}`
      : '; no account had it';
    return { role, moved_to: STANDARD_USER, accounts, message: `Role ${role} removed${moved}` };
  });
}

function builtin(role: string, what: string): AppError {
  return new AppError('ROLE_BUILTIN', `${role} is a built-in role: it cannot be ${what} (docs/supervision.md#roles-and-rights)`, { role });
}

/**
 * Sets rights of a role. Without `dictionary`: the role's defaults (custom roles only: the
 * built-in roles' defaults are fixed). With `dictionary`: its rows for that dictionary, which
 * replace the defaults' dictionary rights there (`data.none`: nothing); `default` alone removes
 * the rows, so the defaults hold again. Administrator holds everything everywhere: no rows.
 */
export async function setRoleRights(
  store: StoreScope,
  name: string,
  rights: string | readonly string[],
  dictionary?: string,
): Promise<RoleDetail> {
  const role = await requireRoleName(store, name);
  const list = typeof rights === 'string' ? rights.split(',').map((r) => r.trim()) : [...rights];
  if (dictionary === undefined) {
    if (isBuiltinRole(role)) throw builtin(role, 'given other default rights; give it rights per dictionary, or add a custom role');
    const parsed = parseRights(list, 'defaults');
    return store.transaction(async (tx) => {
      await tx.roles.setDefaults(
        role,
        parsed.filter((r) => r !== DATA_NONE),
      );
      return view(tx, role);
    });
  }
  if (role === ADMINISTRATOR) throw builtin(role, 'limited on a dictionary: it holds every right on every dictionary');
  const reset = list.length === 1 && list[0] === 'default';
  const parsed = reset ? [] : parseRights(list, 'dictionary');
  return store.transaction(async (tx) => {
    const dict = await requireDictionaryRow(tx, dictionary);
    await tx.roles.setDictionaryRights(role, dict.name, parsed);
    return view(tx, role);
  });
}

/**
 * Refuses (AUTH-004) giving role `role` by someone holding only `grantor`: an account with
 * users.write may give only a role whose rights, defaults and per-dictionary rows alike, it holds
 * itself, so that it cannot make an account mightier than its own (docs/supervision.md#roles-and-rights).
 */
export async function requireGrantable(store: StoreScope, role: string, grantor: ReadonlySet<Right>): Promise<void> {
  const r = await readRoleRights(store, role);
  const needed = new Set<Right>([...r.defaults, ...[...r.dictionaries.values()].flat()]);
  const missing = [...needed].filter((x) => !grantor.has(x));
  if (missing.length) {
    throw new AppError(
      'AUTH-004',
      `the role ${role} holds rights the caller does not (${sortRights(missing).join(', ')}); it may not give it`,
      {
        oauth_error: 'access_denied',
        permission: missing[0],
        role,
      },
    );
  }
}
