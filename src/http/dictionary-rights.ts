import type { Context } from 'hono';
import { effectiveRights, requireRight, type Right } from '../core/auth/index.js';
import type { Store } from '../core/home/index.js';
import type { AppEnv } from './app-env.js';

/**
 * Checks `right` on each dictionary a request names in its body (a breakout of several
 * dictionaries), where authenticate.ts, which reads only the path, could not: 403
 * `access_denied` for the first dictionary the caller's role may not (docs/supervision.md#roles-and-rights).
 */
export async function requireOnDictionaries(
  c: Context<AppEnv>,
  store: Store,
  right: Right,
  dictionaries: readonly string[],
): Promise<void> {
  const principal = c.get('principal');
  for (const d of dictionaries) requireRight(await effectiveRights(store, principal, d), right, principal.role, d);
}
