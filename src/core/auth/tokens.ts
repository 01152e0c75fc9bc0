import type { Store } from '../../store/open-store.js';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken, verifyAccessToken, type Principal } from './access-tokens.js';
import { checkClient, DEFAULT_CLIENTS } from './clients.js';
import { oauthError } from './oauth-error.js';
import { checkPassword } from './password-login.js';
import { issueRefreshToken, rotateRefreshToken } from './refresh-tokens.js';

/** Parameters of a token request, already decoded from the form or JSON body (all optional here). */
export interface TokenRequest {
  grant_type?: string;
  username?: string;
  password?: string;
  refresh_token?: string;
  client_id?: string;
  client_secret?: string;
}

/** Token response (spec 2.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

export interface TokenServiceOptions {
  store: Store;
  /** HS256 key, see accessTokenKey(). */
  key: Uint8Array;
  /** Current time in epoch milliseconds; injectable so expiry can be tested without waiting. */
  clock?: () => number;
  /** Accepted OAuth clients, client_id → secret; DEFAULT_CLIENTS when absent. */
  clients?: Readonly<Record<string, string>>;
}

export interface TokenService {
  /** Handles `POST /api/token`: the password grant or the refresh grant (spec 4.1, 5). */
  grant(req: TokenRequest): Promise<TokenResponse>;
  /** Checks a bearer access token and returns the caller, or fails with 401 `invalid_token`. */
  authenticate(token: string): Promise<Principal>;
}

/**
 * The OAuth 2.0 token service of the API: password and refresh grants issuing JWT access tokens
 * (3600 s) and rotating opaque refresh tokens (30 days, stored hashed, reuse revokes the family).
 */
export function createTokenService(opts: TokenServiceOptions): TokenService {
  const { store, key } = opts;
  const clock = opts.clock ?? Date.now;
  const clients = opts.clients ?? DEFAULT_CLIENTS;

  async function respond(user: { username: string; role: Principal['role'] }, refreshToken: string, now: number): Promise<TokenResponse> {
    return {
      access_token: await signAccessToken(key, user, now),
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
    };
  }

  return {
    async grant(req) {
      if (!req.grant_type) throw oauthError('USAGE', 'invalid_request', 'the grant type was not specified in the request (grant_type)');
      if (req.grant_type !== 'password' && req.grant_type !== 'refresh_token') {
        throw oauthError('USAGE', 'unsupported_grant_type', `grant_type must be password or refresh_token, got "${req.grant_type}"`);
      }
      const clientId = checkClient(clients, req.client_id, req.client_secret);
      if (req.grant_type === 'password') {
        if (!req.username || !req.password) {
          throw oauthError('USAGE', 'invalid_request', 'missing parameters: "username" and "password" are required');
        }
        const user = await checkPassword(store, req.username, req.password);
        const now = clock();
        return respond(user, issueRefreshToken(store, user, clientId, now), now);
      }
      if (!req.refresh_token) throw oauthError('USAGE', 'invalid_request', 'missing parameter: "refresh_token" is required');
      const now = clock();
      const { user, refreshToken } = rotateRefreshToken(store, req.refresh_token, clientId, now);
      return respond(user, refreshToken, now);
    },
    authenticate(token) {
      return verifyAccessToken(store, key, token, clock());
    },
  };
}
