import type { MiddlewareHandler } from 'hono';
import { requirePermission, type Permission, oauthError, type TokenService } from '../core/auth/index.js';
import type { AppEnv } from './app-env.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Route guard: a valid `Authorization: Bearer <access token>` (401 `invalid_token` otherwise),
 * then the role's permission from the decision table (403 `access_denied`). Tokens are accepted
 * only in the header, never in the query string, so they do not end up in logs.
 */
export function authenticate(tokens: TokenService, permission: Permission): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const m = BEARER.exec(c.req.header('authorization') ?? '');
    if (!m)
      throw oauthError(
        'AUTH-003',
        'invalid_token',
        'an access token is required: send Authorization: Bearer <access_token> (get one at POST /api/token)',
      );
    const principal = await tokens.authenticate(m[1]!);
    requirePermission(principal.role, permission);
    c.set('principal', principal);
    await next();
  };
}
