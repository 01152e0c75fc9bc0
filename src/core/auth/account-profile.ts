/**
 * Who an account belongs to: first and last name, email and phone (docs/supervision.md#accounts),
 * set by `sds users add/update` and the CSV import, shown by `sds users list/show`.
 */
import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { checkProfileInput, type ProfileInput } from './profile-input.js';
import { view, type UserView } from './users.js';

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
