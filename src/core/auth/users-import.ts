/**
 * `sds users import` and `POST /api/users/import`: accounts from a CSV in CSWeb's column order,
 * all of them or none (docs/supervision.md#accounts).
 */
import type { Store } from '../../store/open-store.js';
import type { Role } from '../../store/users-repo.js';
import { AppError } from '../../shared/errors.js';
import { limitsOf } from '../home/index.js';
import { hashPassword } from './passwords.js';
import { readCsvRecords } from './users-csv.js';
import { requireGrantable } from './rights/roles.js';
import type { Right } from './rights/catalogue.js';
import { accountRecords, planUsersImport, type ImportProblem, type ImportRow } from './users-import-plan.js';

export interface UsersImportOptions {
  /** The first line is a header row (CSWeb's `x-csw-data-header: 1`). */
  header?: boolean;
  /** Accounts that exist already are updated (role, password, names, email, phone) instead of refused. */
  update?: boolean;
  /** The file's name, for messages. */
  source?: string;
  /**
   * The rights of an HTTP caller: it may give only roles whose rights it holds itself
   * (docs/supervision.md#roles-and-rights). The CLI, the operator, has no such limit.
   */
  grantor?: ReadonlySet<Right>;
}

/** What an import did, account by account. */
export interface UsersImportResult {
  added: number;
  updated: number;
  accounts: { line: number; username: string; role: Role; action: ImportRow['action'] }[];
}

/** Passwords hashed at once: argon2 runs on the thread pool, which has four threads by default. */
const HASHING_AT_ONCE = 4;

/** Problems listed in the message; every one is in `details.errors`. */
const PROBLEMS_IN_MESSAGE = 20;

function tooLarge(what: string, count: number, limit: number, key: string): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the CSV of accounts has ${count} ${what}, more than the limit of ${limit} (limits.${key})`, {
    limit,
    [what]: count,
  });
}

function invalid(problems: ImportProblem[], source: string, headerSuspected: boolean): AppError {
  const lines = problems.slice(0, PROBLEMS_IN_MESSAGE).map((p) => `  line ${p.line}${p.field ? ` (${p.field})` : ''}: ${p.message}`);
  const more = problems.length > PROBLEMS_IN_MESSAGE ? [`  … and ${problems.length - PROBLEMS_IN_MESSAGE} more`] : [];
  const header = headerSuspected ? ['  line 1 looks like a header row: say that the file has one'] : [];
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new AppError(
    'USERS_IMPORT_INVALID',
    [`${source} has ${count}; no account was imported:`, ...lines, ...more, ...header].join('\n'),
    {
      file: source,
      errors: problems,
      ...(headerSuspected ? { header_suspected: true } : {}),
      ...(problems.some((p) => p.exists) ? { accounts_exist: true } : {}),
    },
  );
}

async function hashAll(rows: readonly ImportRow[]): Promise<string[]> {
  const hashes: string[] = new Array<string>(rows.length);
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      hashes[i] = await hashPassword(rows[i]!.password);
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASHING_AT_ONCE, rows.length) }, worker));
  return hashes;
}

/**
 * Imports the accounts of a CSV (UTF-8 bytes, or text already decoded): checks the size and
 * row limits, reads and validates every line (USERS_IMPORT_INVALID listing each bad line, nothing
 * written), hashes the passwords, then adds and updates every account in one store transaction.
 * A role change ends the account's tokens, as `setUserRole` does.
 */
export async function importUsersCsv(store: Store, csv: Uint8Array | string, opts: UsersImportOptions = {}): Promise<UsersImportResult> {
  const limits = limitsOf(store);
  const source = opts.source ?? 'the CSV of accounts';
  const size = typeof csv === 'string' ? Buffer.byteLength(csv, 'utf8') : csv.byteLength;
  if (size > limits.usersImportBytes) throw tooLarge('bytes', size, limits.usersImportBytes, 'users_import_bytes');
  let text: string;
  try {
    text = typeof csv === 'string' ? csv : new TextDecoder('utf-8', { fatal: true }).decode(csv);
  } catch {
    throw invalid([{ line: 1, message: 'the file is not UTF-8 text; save it as CSV UTF-8' }], source, false);
  }
  const read = readCsvRecords(text);
  if (!read.ok) throw invalid([{ line: read.line, message: read.message }], source, false);
  const header = opts.header === true;
  const count = accountRecords(read.records, header).length;
  if (count > limits.usersImportRows) throw tooLarge('rows', count, limits.usersImportRows, 'users_import_rows');
  if (count === 0) throw invalid([{ line: 1, message: 'the file holds no account' }], source, false);

  const existing = (await store.users.listWithHashes()).map((u) => u.username);
  const roles = (await store.roles.list()).map((r) => r.name);
  const plan = planUsersImport(read.records, { header, update: opts.update === true, existing, roles });
  if (plan.problems.length) throw invalid(plan.problems, source, plan.headerSuspected);
  if (opts.grantor) for (const role of new Set(plan.rows.map((r) => r.role))) await requireGrantable(store, role, opts.grantor);
  const hashes = await hashAll(plan.rows);

  const now = Date.now();
  await store.transaction(async (tx) => {
    // Looked for again inside the transaction: an account may have come or gone while the passwords were hashed.
    for (const [i, row] of plan.rows.entries()) {
      const current = await tx.users.find(row.username);
      if (row.action === 'add') {
        if (current) throw new AppError('CONFLICT', `line ${row.line}: user ${row.username} was created meanwhile; nothing was imported`);
        await tx.users.insert(row.username, row.role, hashes[i]!, row.profile);
        continue;
      }
      if (!current) throw new AppError('NOT_FOUND', `line ${row.line}: user ${row.username} was removed meanwhile; nothing was imported`);
      await tx.users.update(row.username, { role: row.role, passwordHash: hashes[i]! });
      await tx.users.setProfile(row.username, row.profile);
      if (current.role !== row.role) await tx.refreshTokens.revokeUser(current.id, now);
    }
  });
  const accounts = plan.rows.map((r) => ({ line: r.line, username: r.username, role: r.role, action: r.action }));
  return {
    added: accounts.filter((a) => a.action === 'add').length,
    updated: accounts.filter((a) => a.action === 'update').length,
    accounts,
  };
}
