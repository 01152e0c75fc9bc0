import type { Role } from '../../store/users-repo.js';
import type { TokenResponse } from './tokens.js';

/** The account as CSPro 8.1 reads it from a password grant: its `id` (the account's UUID) and `roleName`. */
export interface CsproUser {
  id: string;
  roleName: string;
}

/**
 * The password grant's reply to a CSPro 8.1 client (docs/sync.md#token): the usual tokens under
 * `credentials`, and the account under `user`, with the account's UUID as `id` (as CSWeb 8.1 sends
 * its users' UUIDs). A refresh is always answered flat: the client reads its reply as the flat
 * form only. `roleName` is the role's name, CSWeb's for the roles CSWeb has (Standard User,
 * Administrator, Developer): the client keys its data-source cache by it, quotes it in its
 * refusals, and refuses to open a data source as `Administrator`.
 */
export function wrappedTokenReply(
  tokens: TokenResponse,
  user: { uuid: string; role: Role },
): { credentials: TokenResponse; user: CsproUser } {
  return { credentials: tokens, user: { id: user.uuid, roleName: user.role } };
}
