import type { Context, MiddlewareHandler } from 'hono';
import { effectiveRights, requireRight, type Right, oauthError, type TokenService } from '../core/auth/index.js';
import type { Store } from '../core/home/index.js';
import type { AppEnv } from './app-env.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Route guard: a valid `Authorization: Bearer <access token>` (401 `invalid_token` otherwise),
 * then the right the route needs, among the account's effective rights on the dictionary the
 * route names in its path parameter `dictionaryParam` (403 `access_denied`;
 * docs/supervision.md#roles-and-rights). The rights are left in the context (`rights`) for a
 * handler that checks more. Tokens are accepted only in the header, never in the query string,
 * so they do not end up in logs.
 */
export function authenticate(
  tokens: TokenService,
  store: Store,
  right: Right,
  dictionaryParam?: string,
  prefetch?: (c: Context<AppEnv>) => Promise<unknown> | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const m = BEARER.exec(c.req.header('authorization') ?? '');
    if (!m)
      throw oauthError(
        'AUTH-003',
        'invalid_token',
        'an access token is required: send Authorization: Bearer <access_token> (get one at POST /api/token)',
      );
    // Started only once the signature holds, so a forged token costs no read of the store.
    let prefetched: Promise<unknown> | undefined;
    const principal = await tokens.authenticate(m[1]!, () => {
      prefetched = prefetch?.(c);
      // A refused request never reads it: its failure must not become an unhandled rejection.
      prefetched?.catch(() => {});
    });
    const dictionary = dictionaryParam === undefined ? undefined : c.req.param(dictionaryParam);
    const rights = await effectiveRights(store, principal, dictionary);
    requireRight(rights, right, principal.role, dictionary);
    c.set('principal', principal);
    c.set('rights', rights);
    if (prefetched) c.set('prefetched', prefetched);
    await next();
  };
}
