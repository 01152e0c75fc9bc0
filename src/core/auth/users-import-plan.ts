/**
 * The validation of a CSV of accounts, whole, before anything is written
 * (docs/supervision.md#accounts). Pure: records and the names of the accounts that exist in, a
 * plan of what to add and update, or every problem with its line, out.
 */
import type { AccountProfile, Role } from '../../store/users-repo.js';
import { cswebUsernameProblem, emailProblem, nameProblem, phoneProblem } from './account-fields.js';
import { passwordProblem } from './passwords.js';
import { roleFromName } from './role-name.js';
import type { CsvRecord } from './users-csv.js';

/** CSWeb's column order; email and phone may be left out. */
const USERS_CSV_COLUMNS = ['username', 'first name', 'last name', 'role name', 'password', 'email', 'phone'] as const;
const REQUIRED_COLUMNS = 5;

/** One thing wrong with a line of the file. */
export interface ImportProblem {
  line: number;
  /** The column (as USERS_CSV_COLUMNS names it), absent when the whole line is wrong. */
  field?: string;
  message: string;
  /** The line names an account that exists, which updating would have taken. */
  exists?: true;
}

/** One account to write. */
export interface ImportRow {
  line: number;
  username: string;
  role: Role;
  password: string;
  profile: AccountProfile;
  /** `add` a new account, or `update` the one of that name (only with the update option). */
  action: 'add' | 'update';
}

export interface ImportPlanOptions {
  /** The first record is a header row, not an account. */
  header: boolean;
  /** An account that exists already is updated instead of being an error. */
  update: boolean;
  /** The names of the accounts in the store. */
  existing: readonly string[];
  /** The names of the roles in the store (docs/supervision.md#roles-and-rights). */
  roles: readonly string[];
}

/** The plan: rows to write when `problems` is empty, else nothing may be written. */
export interface ImportPlan {
  rows: ImportRow[];
  problems: ImportProblem[];
  /** The first record looks like CSWeb's header row and was read as an account. */
  headerSuspected: boolean;
}

const orNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

/** The records that are accounts: all of them, or all but a header row. */
export function accountRecords(records: readonly CsvRecord[], header: boolean): readonly CsvRecord[] {
  return header ? records.slice(1) : records;
}

/**
 * Checks every record and plans the writes. Problems per line: the number of columns, the user
 * name (CSWeb 8.1's rule), first and last name, the role name (roleFromName), the password
 * (sds's rules), email and phone when given, a user name given twice in the file (compared
 * without case, as CSWeb's database compares them), an account that exists already without
 * `update`, and one that exists under the same name in another case (sds compares names exactly,
 * so an update could not tell which one is meant).
 */
export function planUsersImport(records: readonly CsvRecord[], opts: ImportPlanOptions): ImportPlan {
  const exact = new Set(opts.existing);
  const folded = new Map<string, string>();
  for (const name of opts.existing) folded.set(name.toLowerCase(), name);
  const seen = new Map<string, number>();
  const rows: ImportRow[] = [];
  const problems: ImportProblem[] = [];
  const accounts = accountRecords(records, opts.header);
  for (const { line, fields } of accounts) {
    const before = problems.length;
    const problem = (message: string, field?: string, exists?: true) =>
      problems.push({ line, ...(field ? { field } : {}), message, ...(exists ? { exists } : {}) });
    if (fields.length < REQUIRED_COLUMNS || fields.length > USERS_CSV_COLUMNS.length) {
      problem(
        `has ${fields.length} column${fields.length === 1 ? '' : 's'}; expected ${REQUIRED_COLUMNS} to ${USERS_CSV_COLUMNS.length}: ${USERS_CSV_COLUMNS.join(', ')}`,
      );
      continue;
    }
    const [rawUsername, rawFirst, rawLast, rawRole, password, rawEmail, rawPhone] = fields as [
      string,
      string,
      string,
      string,
      string,
      ...string[],
    ];
    const username = rawUsername.trim();
    const first = rawFirst.trim();
    const last = rawLast.trim();
    const email = orNull(rawEmail?.trim());
    const phone = orNull(rawPhone?.trim());
    const check = (field: string, message: string | undefined) => message !== undefined && problem(message, field);
    check('username', cswebUsernameProblem(username));
    check('first name', nameProblem('first name', first));
    check('last name', nameProblem('last name', last));
    const role = roleFromName(rawRole, opts.roles);
    if (!role) problem(`role "${rawRole.trim().slice(0, 64)}" is not one of ${opts.roles.join(', ')}`, 'role name');
    // The password as written: spaces around it are part of it.
    check('password', passwordProblem(password));
    if (email !== null) check('email', emailProblem(email));
    if (phone !== null) check('phone', phoneProblem(phone));
    const key = username.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) problem(`user name ${username} is also on line ${earlier}`, 'username');
    else seen.set(key, line);
    let action: ImportRow['action'] = 'add';
    if (exact.has(username)) {
      if (opts.update) action = 'update';
      else problem(`an account ${username} exists already, and updating accounts was not asked`, 'username', true);
    } else if (folded.has(key)) {
      problem(`an account ${folded.get(key)!} exists already, differing only in case`, 'username');
    }
    if (problems.length > before || !role) continue;
    rows.push({ line, username, role, password, profile: { firstName: first, lastName: last, email, phone }, action });
  }
  const head = records[0]?.fields[0]?.trim().toLowerCase();
  const headerSuspected = !opts.header && (head === 'username' || head === 'user name' || head === 'user');
  return { rows, problems, headerSuspected };
}
