import { oauthError, wrappedTokenReply } from '../../core/auth/index.js';
import { syncApiVersion } from '../../core/sync/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { recordLogin } from '../audit-route.js';
import { clientAddress } from '../client-address.js';
import { readTokenParams } from '../read-body.js';
import { json, OAuthErrorBody, RateLimitBody } from '../schemas/common.js';
import { TokenRequest, TokenResponse, WrappedTokenResponse } from '../schemas/token.js';
import type { RouteDeps } from './route-deps.js';

/** `POST /api/token`: OAuth 2.0 password and refresh grants (docs/http-api.md#authentication). */
export function tokenRoutes(api: ApiBuilder, { store, tokens, config }: RouteDeps): void {
  api.route({
    method: 'post',
    path: '/api/token',
    summary: 'Get an access token (password grant) or renew it (refresh grant)',
    description:
      'Form-urlencoded as the spec says, or JSON with `client_id`/`client_secret` as the CSPro data-collection client sends. ' +
      'A request naming a client must name a configured one (default `cspro_android`/`cspro`), else `invalid_client`. ' +
      'Each refresh returns a new refresh token and invalidates the old one; presenting an old one again revokes the whole login. ' +
      'Failed logins are throttled per (username, client address) and per address: past the limit the answer is 429 `API-004` with `Retry-After`. ' +
      'Concurrent logins wait for each other rather than being refused; past the number allowed to wait from one address, 429 `API-004` with `Retry-After: 1`. ' +
      'A password grant from CSPro 8.1 or later (`User-Agent: CSPro sync client/8.1…`) is answered in the wrapped form ' +
      '`{credentials: {…the tokens…}, user: {id, roleName}}`; a refresh is always answered flat (docs/sync.md#token).',
    tags: ['auth'],
    permission: 'public',
    bodyLimit: config.maxBodyBytes,
    // The token endpoint answers every failure in the OAuth shape, a body too large included.
    bodyTooLarge: (limit) =>
      oauthError('PAYLOAD_TOO_LARGE', 'invalid_request', `the request body is larger than the limit of ${limit} bytes`),
    request: {
      body: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: TokenRequest },
          'application/json': { schema: TokenRequest },
        },
      },
    },
    responses: {
      200: json(TokenResponse.or(WrappedTokenResponse), 'tokens (wrapped with the account for a password grant of CSPro 8.1 and later)'),
      400: json(OAuthErrorBody, '`invalid_request` (missing or repeated parameter, bad body) or `unsupported_grant_type`'),
      401: json(
        OAuthErrorBody,
        '`invalid_grant` (bad credentials, disabled account, bad/expired/reused refresh token) or `invalid_client`',
      ),
      413: json(OAuthErrorBody, `\`invalid_request\`: the body is larger than the limit (\`maxBodyBytes\`, default 64 KB)`),
      429: json(
        RateLimitBody,
        'too many failed logins from this address, or for this user from this address, or too many logins waiting at once (`API-004`); see `Retry-After`',
      ),
    },
    handler: async (c) => {
      const params = await readTokenParams(c, TokenRequest);
      const audit = { store, trustedProxies: () => config.trustedProxies ?? [] };
      // A login by password is in the audit trail, whatever its outcome (docs/supervision.md#what-is-recorded).
      const login = params.grant_type === 'password' && typeof params.username === 'string' ? params.username : undefined;
      let granted;
      try {
        granted = await tokens.grant(params, { address: clientAddress(c, config.trustedProxies ?? []) });
      } catch (err) {
        if (login !== undefined) await recordLogin(c, audit, login, err).catch(() => undefined);
        throw err;
      }
      if (login !== undefined) await recordLogin(c, audit, login);
      // Only a password grant to a version-3 client is wrapped: CSPro 8.1 reads a refresh reply flat, 8.0 reads every reply flat.
      const wrapped = granted.grant === 'password' && syncApiVersion(c.req.header('user-agent')) === 3;
      const reply = wrapped ? wrappedTokenReply(granted.tokens, granted.user) : granted.tokens;
      return c.json(reply, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    },
  });
}
