/**
 * Pure mapping of CSWeb roles to sds's built-in roles (docs/migrating-from-csweb.md#users-and-roles).
 * CSWeb grants rights per role: six global ones and, per dictionary, sync upload and download;
 * sds grants a fixed set per role (docs/http-api.md#roles). Each CSWeb role goes to the nearest
 * sds role, and every right that differs is reported: one the sds role adds (widened) or one it
 * lacks (narrowed).
 */

import type { CswebReportEntry } from './report-entry.js';

/** sds's roles, as the store names them. */
export type SdsRole = 'Administrator' | 'API' | 'Standard User';

/** A CSWeb role with its rights, as read from cspro_roles and the two permission tables. */
export interface CswebRole {
  id: number;
  name: string;
  /** Names of its global rights (cspro_role_permissions), e.g. data_all. Empty for the built-in roles. */
  permissions: readonly string[];
  /** Its per-dictionary sync rights (cspro_role_dictionary_permissions). */
  dictionaryPermissions: readonly { dictionary: string; permission: string }[];
}

/** The outcome for one role: the sds role its users get, and a report line per right that differs. */
export interface RoleMapping {
  role: SdsRole;
  report: CswebReportEntry[];
}

/** CSWeb's built-in role ids, whose rights are fixed in its code rather than in the tables. */
const CSWEB_STANDARD_USER = 1;
const CSWEB_ADMINISTRATOR = 2;

const UPLOAD = 'dictionary_sync_upload';
const DOWNLOAD = 'dictionary_sync_download';
/** CSWeb's global rights, as cspro_permissions names them. */
const GLOBAL_RIGHTS = ['data_all', 'apps_all', 'users_all', 'roles_all', 'reports_all', 'settings_all'] as const;

/**
 * The CSWeb rights each sds role amounts to. Standard User reads and syncs cases of every dictionary;
 * API also deploys files and apps, runs breakouts and reads their status; Administrator does all.
 */
const GRANTS: Record<SdsRole, readonly string[]> = {
  'Standard User': ['data_all'],
  API: ['data_all', 'apps_all', 'reports_all', 'settings_all'],
  Administrator: GLOBAL_RIGHTS,
};

/** What each CSWeb right lets a user do, for report messages. */
const MEANING: Record<string, string> = {
  data_all: 'read the data of every dictionary',
  apps_all: 'deploy applications',
  users_all: 'manage users',
  roles_all: 'manage roles',
  reports_all: 'see sync reports',
  settings_all: 'change data (breakout) settings',
};

function pick(held: ReadonlySet<string>): SdsRole {
  // users_all lets its holder create an Administrator account, and roles_all lets it add any
  // right to its own role: in CSWeb either one already amounts to every right.
  if (held.has('users_all') || held.has('roles_all')) return 'Administrator';
  if (held.has('apps_all') || held.has('settings_all')) return 'API';
  return 'Standard User';
}

/**
 * Maps one CSWeb role to the nearest sds role. `dictionaries` are every dictionary of the CSWeb
 * database (every sds role syncs them all); `holders` are the user names holding the role, named in
 * the report. Built-in roles: Administrator → Administrator exactly;  Standard User → Standard User,
 * which cannot delete dictionaries as CSWeb's Standard User can.
 */
export function mapCswebRole(role: CswebRole, dictionaries: readonly string[], holders: readonly string[] = []): RoleMapping {
  const who = holders.length
    ? ` (held by ${holders.slice(0, 5).join(', ')}${holders.length > 5 ? ` and ${holders.length - 5} more` : ''})`
    : '';
  const line = (code: 'CSWEB_ROLE_WIDENED' | 'CSWEB_ROLE_NARROWED', message: string, dictionary?: string): CswebReportEntry => ({
    level: 'warn',
    code,
    ...(dictionary === undefined ? {} : { dictionary }),
    message: `CSWeb role "${role.name}"${who}: ${message}`,
  });
  if (role.id === CSWEB_ADMINISTRATOR) return { role: 'Administrator', report: [] };
  if (role.id === CSWEB_STANDARD_USER) {
    return {
      role: 'Standard User',
      report: [line('CSWEB_ROLE_NARROWED', "may delete dictionaries in CSWeb; sds's Standard User role may not (docs/http-api.md#roles)")],
    };
  }
  const held = new Set(role.permissions);
  const sds = pick(held);
  const granted = new Set(GRANTS[sds]);
  const report: CswebReportEntry[] = [];
  for (const right of GLOBAL_RIGHTS) {
    if (granted.has(right) && !held.has(right)) {
      report.push(
        line('CSWEB_ROLE_WIDENED', `becomes sds ${sds}, which may ${MEANING[right]} (${right}), a right the CSWeb role does not have`),
      );
    }
    if (held.has(right) && !granted.has(right)) {
      report.push(line('CSWEB_ROLE_NARROWED', `becomes sds ${sds}, which may not ${MEANING[right]} (${right}) as the CSWeb role may`));
    }
  }
  for (const right of held) {
    if (!(GLOBAL_RIGHTS as readonly string[]).includes(right)) {
      report.push(line('CSWEB_ROLE_NARROWED', `has the right "${right}", which sds does not know; sds ${sds} does not carry it`));
    }
  }
  const perDictionary = (p: string) =>
    new Set(role.dictionaryPermissions.filter((d) => d.permission === p).map((d) => d.dictionary.toUpperCase()));
  const uploads = perDictionary(UPLOAD);
  const downloads = perDictionary(DOWNLOAD);
  for (const dictionary of dictionaries) {
    const missing = [
      ...(uploads.has(dictionary.toUpperCase()) ? [] : ['upload']),
      ...(downloads.has(dictionary.toUpperCase()) ? [] : ['download']),
    ];
    if (missing.length) {
      report.push(
        line(
          'CSWEB_ROLE_WIDENED',
          `may not sync (${missing.join(', ')}) dictionary ${dictionary} in CSWeb; sds ${sds} syncs every dictionary`,
          dictionary,
        ),
      );
    }
  }
  return { role: sds, report };
}
