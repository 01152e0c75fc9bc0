/**
 * Who an account belongs to: first and last name, email and phone (docs/supervision.md#accounts),
 * set by `sds users add/update` and the CSV import, shown by `sds users list/show`.
 */
import type { Store } from '../../store/open-store.js';
import type { AccountProfile } from '../../store/users-repo.js';
import { AppError } from '../../shared/errors.js';
import { emailProblem, nameProblem, phoneProblem } from './account-fields.js';
import { view, type UserView } from './users.js';

/** Profile fields as an operator gives them: absent leaves a field, an empty string clears it. */
export interface ProfileInput {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
}

const FIELDS = [
  ['first_name', 'firstName', (v: string) => nameProblem('first name', v)],
  ['last_name', 'lastName', (v: string) => nameProblem('last name', v)],
  ['email', 'email', emailProblem],
  ['phone', 'phone', phoneProblem],
] as const satisfies readonly (readonly [keyof ProfileInput, keyof AccountProfile, (v: string) => string | undefined])[];

/**
 * Checks the fields given (CSWeb 8.1's rules, docs/supervision.md#accounts) and returns the
 * change they make: trimmed, an empty one null. USAGE naming the field when one is not valid.
 */
export function checkProfileInput(input: ProfileInput): Partial<AccountProfile> {
  const change: Partial<AccountProfile> = {};
  for (const [key, field, problemOf] of FIELDS) {
    const raw = input[key];
    if (raw === undefined) continue;
    const value = raw.trim();
    if (value === '') {
      change[field] = null;
      continue;
    }
    const problem = problemOf(value);
    if (problem) throw new AppError('USAGE', problem, { field: key });
    change[field] = value;
  }
  return change;
}

/** One account, as `sds users show` and `--json` give it; NOT_FOUND when there is none. */
export async function showUser(store: Store, username: string): Promise<UserView> {
  const u = await store.users.find(username);
  if (!u) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
  return view(u);
}

/**
 * Changes who an account belongs to: the fields given are set (an empty one cleared), the
 * others stay. USAGE when nothing is given or a field is not valid; NOT_FOUND without the account.
 */
export async function updateUser(store: Store, username: string, input: ProfileInput): Promise<UserView> {
  const change = checkProfileInput(input);
  if (Object.keys(change).length === 0) {
    throw new AppError('USAGE', 'nothing to change: give a first name, last name, email or phone');
  }
  return store.transaction(async (tx) => {
    if (!(await tx.users.setProfile(username, change))) throw new AppError('NOT_FOUND', `user ${username} not found`, { user: username });
    return view((await tx.users.find(username))!);
  });
}
