/**
 * An account's names, email and phone as an operator gives them, checked (docs/supervision.md#accounts):
 * pure, shared by `sds users add` (users.ts) and `sds users update` (account-profile.ts).
 */
import type { AccountProfile } from '../../store/users-repo.js';
import { AppError } from '../../shared/errors.js';
import { emailProblem, nameProblem, phoneProblem } from './account-fields.js';

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
