/**
 * CSWeb 8.1's roles kept as sds roles (docs/migrating-from-csweb.md#csweb-81): sds names its
 * rights as CSWeb 8.1 does (docs/supervision.md#roles-and-rights), so a role comes across as it
 * was rather than mapped to the nearest built-in role. Its three built-in roles are sds's of the
 * same names, whose defaults are fixed in sds (their per-dictionary rows come across); a custom
 * role becomes a custom role of the same name with its defaults and per-dictionary rows. Pure:
 * users.ts writes the plan in the import's transaction.
 */
import { ADMINISTRATOR, DATA_NONE, DICTIONARY_RIGHTS, STANDARD_USER, isRight, sortRights, type Right } from '../auth/index.js';
import type { Csweb81Role } from '../../csweb/rights-81.js';
import type { CswebReportEntry } from '../../csweb/report-entry.js';

/** CSWeb 8.1's built-in role ids (setup/configure.php) and the sds roles of the same names. */
const BUILTIN_81: Readonly<Record<number, string>> = { 1: STANDARD_USER, 2: ADMINISTRATOR, 3: 'Developer' };

/** The halves a CSWeb 8.1 group name (cspro_permissions without a dot) stands for. */
const GROUP_HALVES: Readonly<Record<string, readonly string[]>> = {
  data: ['data.read', 'data.write', 'data.clear', 'data.clear.dashboard'],
};
const halves = (group: string): readonly string[] => GROUP_HALVES[group] ?? [`${group}.read`, `${group}.write`];

/** What one CSWeb 8.1 role becomes in sds. */
export interface Role81Plan {
  /** The sds role its accounts get. */
  role: string;
  /** Defaults to give a custom role (undefined for a built-in role, whose defaults sds fixes). */
  defaults?: Right[];
  /** Per-dictionary rows, by sds dictionary name; `['data.none']` for nothing. */
  rows: { dictionary: string; rights: string[] }[];
  report: CswebReportEntry[];
}

/** CSWeb 8.1 rights as sds rights: group names expanded, the client's file sync with `files.*`, unknown names reported. */
function toSdsRights(names: readonly string[], role: string, report: CswebReportEntry[]): Right[] {
  const out = new Set<Right>();
  for (const n of names) {
    for (const r of n.includes('.') || n === 'login' ? [n] : halves(n)) {
      if (isRight(r)) out.add(r);
      else if (r !== DATA_NONE)
        report.push({
          level: 'warn',
          code: 'CSWEB_ROLE_NARROWED',
          message: `CSWeb role "${role}" holds ${r}, a right this version does not know; left out`,
        });
    }
  }
  // sds's own right for the data-collection client's file sync (paradata, shared files) goes with CSWeb's files rights.
  if (out.has('files.read') || out.has('files.write')) out.add('files.sync');
  return sortRights(out);
}

/** A free name for a custom role: its own, unless it is a built-in role's (then marked as CSWeb's). */
function customName(name: string, taken: (n: string) => boolean): string {
  return taken(name) ? `${name} (CSWeb)` : name;
}

/**
 * The sds role of one CSWeb 8.1 role and what to write for it. `isBuiltinName` tells the names
 * sds keeps for its built-in roles (a custom CSWeb role named like one is kept as "NAME (CSWeb)").
 */
export function planRole81(role: Csweb81Role, isBuiltinName: (name: string) => boolean): Role81Plan {
  const report: CswebReportEntry[] = [];
  const builtin = BUILTIN_81[role.id];
  const name = builtin ?? customName(role.name, isBuiltinName);
  const rows =
    name === ADMINISTRATOR
      ? []
      : role.dictionaries.map((d) => ({
          dictionary: d.dictionary,
          rights: d.rights.includes(DATA_NONE)
            ? [DATA_NONE]
            : toSdsRights(d.rights, role.name, report).filter((r) => DICTIONARY_RIGHTS.has(r)),
        }));
  if (name === ADMINISTRATOR && role.dictionaries.length)
    report.push({
      level: 'warn',
      code: 'CSWEB_ROLE_WIDENED',
      message: `CSWeb role "${role.name}" has rows per dictionary; sds's Administrator holds every right on every dictionary, so they are left out`,
    });
  if (builtin) return { role: name, rows, report };
  if (name !== role.name)
    report.push({
      level: 'warn',
      code: 'CSWEB_ROLE_RENAMED',
      message: `CSWeb role "${role.name}" is named like one of sds's built-in roles; it is kept as the custom role "${name}"`,
    });
  return { role: name, defaults: toSdsRights(role.rights, role.name, report), rows, report };
}
