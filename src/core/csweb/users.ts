import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { Role } from '../../store/users-repo.js';
import { hasUserUuid, readCswebAccounts, type CswebUser } from '../../csweb/users-reader.js';
import { CSWEB_80_LAYOUT, CSWEB_81_LAYOUT, type CswebLayout } from '../../csweb/layout.js';
import type { Csweb81Rights } from '../../csweb/rights-81.js';
import { planRole81, type Role81Plan } from './roles-81.js';
import type { CswebReportEntry } from '../../csweb/report-entry.js';
import { mapCswebRole } from '../../csweb/role-mapping.js';
import { isBcryptHash, isBuiltinRole } from '../auth/index.js';

/** What an import did (or, dry, would do) with one CSWeb account. */
export interface CswebUserOutcome {
  username: string;
  action: 'add' | 'update' | 'unchanged' | 'skip';
  /** The sds role it has (or would have); absent when skipped. */
  role?: Role;
  /** What changed, for an update: password, role, details. */
  changed?: ('password' | 'role' | 'details')[];
}

/** The result of importing CSWeb's accounts. */
export interface CswebUsersResult {
  dryRun: boolean;
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  users: CswebUserOutcome[];
  report: CswebReportEntry[];
  /** CSWeb 8.1's roles and rights by its own names; absent for an 8.0 database. */
  rights81?: Csweb81Rights;
}

/** Longest user name taken: CSWeb's column holds 128 characters. */
const MAX_NAME = 128;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function details(u: CswebUser) {
  return { firstName: u.firstName, lastName: u.lastName, email: u.email, phone: u.phone };
}

/** What the accounts of one CSWeb role get: the sds role, the report lines, and for 8.1 what to write for the role. */
interface RoleOf {
  name: string;
  mapping: { role: string; report: CswebReportEntry[] };
  plan?: Role81Plan;
}

/**
 * Writes the CSWeb 8.1 roles that imported accounts hold, as they were in CSWeb: a custom role
 * made or given CSWeb's defaults, and every role's per-dictionary rows, in the import's transaction.
 */
async function writeRoles81(store: StoreScope, users: readonly CswebUser[], mappings: ReadonlyMap<number, RoleOf>): Promise<void> {
  const held = new Set(users.map((u) => u.roleId));
  for (const [id, { plan }] of mappings) {
    if (!plan || !held.has(id)) continue;
    if (plan.defaults) {
      if (!(await store.roles.find(plan.role))) await store.roles.insert(plan.role);
      await store.roles.setDefaults(plan.role, plan.defaults);
    }
    for (const row of plan.rows) await store.roles.setDictionaryRights(plan.role, row.dictionary, row.rights);
  }
}

/**
 * Decides, and unless `dryRun` writes, what becomes of each CSWeb account; runs inside the
 * caller's store transaction so that the decisions hold when the writes happen.
 */
async function apply(
  store: StoreScope,
  users: CswebUser[],
  mappings: Map<number, RoleOf>,
  dryRun: boolean,
): Promise<{ outcomes: CswebUserOutcome[]; report: CswebReportEntry[] }> {
  if (!dryRun) await writeRoles81(store, users, mappings);
  const outcomes: CswebUserOutcome[] = [];
  const report: CswebReportEntry[] = [];
  const skip = (u: CswebUser, code: string, level: 'warn' | 'error', message: string) => {
    outcomes.push({ username: u.username, action: 'skip' });
    report.push({ level, code, user: u.username, message });
  };
  for (const u of users) {
    const role = mappings.get(u.roleId);
    if (!role) {
      skip(
        u,
        'CSWEB_USER_ROLE_UNKNOWN',
        'error',
        `CSWeb user ${u.username} has role id ${u.roleId}, which cspro_roles does not hold; not imported`,
      );
      continue;
    }
    if (u.username.length === 0 || u.username.length > MAX_NAME || CONTROL.test(u.username)) {
      skip(
        u,
        'CSWEB_USER_NAME_INVALID',
        'error',
        `CSWeb user name ${JSON.stringify(u.username)} is empty, too long or has control characters; not imported`,
      );
      continue;
    }
    if (!isBcryptHash(u.password)) {
      skip(u, 'CSWEB_USER_HASH_UNKNOWN', 'error', `CSWeb user ${u.username} has a password hash that is not bcrypt; not imported`);
      continue;
    }
    const record = { cswebUsername: u.username, passwordHash: u.password, cswebRole: role.name, ...details(u) };
    const existing = await store.users.find(u.username);
    if (!existing) {
      const lookalike = await store.users.findIgnoringCase(u.username);
      if (lookalike.length) {
        skip(
          u,
          'CSWEB_USER_NAME_CASE',
          'error',
          `sds already has the account ${lookalike.map((l) => l.username).join(', ')}, which differs from CSWeb user ${u.username} only in case; not imported`,
        );
        continue;
      }
      // CSWeb 8.1's uuid is the id its tablets know (`user.id` at login): kept unless another account has it.
      let uuid = u.uuid;
      if (uuid !== undefined && (await store.users.findByUuid(uuid))) {
        report.push({
          level: 'warn',
          code: 'CSWEB_USER_UUID_TAKEN',
          user: u.username,
          message: `CSWeb user ${u.username} has the uuid ${uuid}, which another account of this home has; the account gets a new one`,
        });
        uuid = undefined;
      }
      if (!dryRun) {
        await store.users.putCswebRecord(
          (await store.users.insert(u.username, role.mapping.role, u.password, details(u), uuid)).id,
          record,
        );
      }
      outcomes.push({ username: u.username, action: 'add', role: role.mapping.role });
      continue;
    }
    const previous = await store.users.cswebRecord(existing.id);
    if (!previous) {
      skip(u, 'CSWEB_USER_EXISTS', 'warn', `sds already has an account ${u.username} that was not imported from CSWeb; left as it is`);
      continue;
    }
    const changed: ('password' | 'role' | 'details')[] = [];
    // Only a hash that changed in CSWeb is taken: sds's own re-hash at the first login leaves
    // CSWeb's hash as it was recorded (docs/migrating-from-csweb.md#users-and-roles).
    if (previous.passwordHash !== u.password) changed.push('password');
    if (existing.role !== role.mapping.role) changed.push('role');
    const was = { firstName: previous.firstName, lastName: previous.lastName, email: previous.email, phone: previous.phone };
    const newDetails = JSON.stringify(was) !== JSON.stringify(details(u));
    if (newDetails || previous.cswebRole !== role.name) changed.push('details');
    if (changed.length && !dryRun) {
      if (changed.includes('password') || changed.includes('role')) {
        // A new role ends the account's tokens (the update bumps its token version), as
        // `sds users set-role` does (docs/http-api.md#what-ends-a-token).
        await store.users.update(existing.username, {
          role: role.mapping.role,
          ...(changed.includes('password') ? { passwordHash: u.password } : {}),
        });
      }
      // Names, email and phone changed in CSWeb are taken; left as they were, they keep what
      // the office set in sds since (docs/supervision.md#accounts).
      if (newDetails) await store.users.setProfile(existing.username, details(u));
      await store.users.putCswebRecord(existing.id, record);
    }
    outcomes.push(
      changed.length
        ? { username: u.username, action: 'update', role: role.mapping.role, changed }
        : { username: u.username, action: 'unchanged', role: role.mapping.role },
    );
  }
  const present = new Set(users.map((u) => u.username));
  for (const gone of await store.users.cswebUsernames()) {
    if (!present.has(gone)) {
      report.push({
        level: 'warn',
        code: 'CSWEB_USER_GONE',
        user: gone,
        message: `the account ${gone} was imported from CSWeb, which no longer has it; left as it is, and it can still log in until it is disabled or removed`,
      });
    }
  }
  return { outcomes, report };
}

/**
 * Imports CSWeb's accounts into sds (docs/migrating-from-csweb.md#users-and-roles): each user with
 * its bcrypt hash kept, so it logs in with the password it has, and its role mapped to the nearest
 * sds role, with a report line for every right that differs. Idempotent: a second run updates the
 * accounts CSWeb changed (a new password in CSWeb is taken) and adds the new ones; accounts made in
 * sds by hand and accounts CSWeb no longer has are left alone. Every write is one store
 * transaction; `dryRun` writes nothing and says what would be done.
 */
export async function importCswebUsers(
  store: Store,
  conn: Connection,
  opts: { dryRun?: boolean; layout?: CswebLayout } = {},
): Promise<CswebUsersResult> {
  const dryRun = opts.dryRun ?? false;
  // Run on its own (no schema check), the account tables tell the version: 8.1's users have a uuid.
  const layout = opts.layout ?? ((await hasUserUuid(conn)) ? CSWEB_81_LAYOUT : CSWEB_80_LAYOUT);
  const source = await readCswebAccounts(conn, layout);
  const holders = new Map<number, string[]>();
  for (const u of source.users) holders.set(u.roleId, [...(holders.get(u.roleId) ?? []), u.username]);
  const mappings = new Map<number, RoleOf>();
  for (const [id, role] of source.roles) {
    const role81 = source.rights81?.roles.find((r) => r.id === id);
    // CSWeb 8.1's roles come across as they are (roles-81.ts); 8.0's go to the nearest built-in role.
    if (role81) {
      const plan = planRole81(role81, isBuiltinRole);
      mappings.set(id, { name: role.name, mapping: { role: plan.role, report: plan.report }, plan });
    } else mappings.set(id, { name: role.name, mapping: mapCswebRole(role, source.dictionaries, holders.get(id) ?? []) });
  }
  const { outcomes, report } = dryRun
    ? await apply(store, source.users, mappings, true)
    : await store.transaction((tx) => apply(tx, source.users, mappings, false));
  // Role lines first, once per role that someone holds: they explain the roles the users got.
  const roleLines = [...mappings.entries()].filter(([id]) => holders.has(id)).flatMap(([, m]) => m.mapping.report);
  const count = (a: CswebUserOutcome['action']) => outcomes.filter((o) => o.action === a).length;
  return {
    dryRun,
    added: count('add'),
    updated: count('update'),
    unchanged: count('unchanged'),
    skipped: count('skip'),
    users: outcomes,
    report: [...roleLines, ...report],
    ...(source.rights81 ? { rights81: source.rights81 } : {}),
  };
}
