import type { Store } from '../../store/open-store.js';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken, verifyAccessToken, type Principal } from './access-tokens.js';
import { checkClient, DEFAULT_CLIENTS } from './clients.js';
import { AppError } from '../../shared/errors.js';
import { createLoginGuard, type LoginEvent } from './login-throttle.js';
import { DEFAULT_LOGIN_THROTTLE, type LoginThrottlePolicy } from './login-throttle-policy.js';
import { oauthError } from './oauth-error.js';
import { checkPassword, type RehashOutcome } from './password-login.js';
import { issueRefreshToken, rotateRefreshToken } from './refresh-tokens.js';

/** Parameters of a token request, already decoded from the form or JSON body (all optional here). */
interface TokenRequest {
  grant_type?: string;
  username?: string;
  password?: string;
  refresh_token?: string;
  client_id?: string;
  client_secret?: string;
}

/** Token response (docs/http-api.md#authentication). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: typeof ACCESS_TOKEN_TTL_SECONDS;
  refresh_token: string;
}

/** What a grant issued, and for whom: the route decides the reply's form (docs/sync.md#token). */
export interface TokenGrant {
  tokens: TokenResponse;
  grant: 'password' | 'refresh_token';
  /** The account: `uuid` is its id that is never reused (docs/http-api.md#what-ends-a-token). */
  user: { uuid: string; username: string; role: Principal['role'] };
}

export interface TokenServiceOptions {
  store: Store;
  /** HS256 key, see accessTokenKey(). */
  key: Uint8Array;
  /** Current time in epoch milliseconds; injectable so expiry can be tested without waiting. */
  clock?: () => number;
  /** Accepted OAuth clients, client_id → secret; DEFAULT_CLIENTS when absent. */
  clients?: Readonly<Record<string, string>>;
  /** Failed-login throttle thresholds; DEFAULT_LOGIN_THROTTLE when absent. */
  throttle?: LoginThrottlePolicy;
  /** Receives every failed and throttled login and every re-hash, for the server log (never the password). */
  onLoginEvent?: (e: LoginEvent) => void;
}

/** Who sent a token request, as far as the HTTP layer can tell. */
interface GrantContext {
  /** Client address (after trusted proxies); 'unknown' when there is no socket. */
  address?: string;
}

export interface TokenService {
  /** Handles `POST /api/token`: the password grant or the refresh grant (docs/http-api.md#authentication). */
  grant(req: TokenRequest, ctx?: GrantContext): Promise<TokenGrant>;
  /**
   * Checks a bearer access token and returns the caller, or fails with 401 `invalid_token`;
   * `whenSigned` runs between the signature's check and the account's read (verifyAccessToken).
   */
  authenticate(token: string, whenSigned?: () => void): Promise<Principal>;
}

/**
 * The OAuth 2.0 token service of the API: password and refresh grants issuing JWT access tokens
 * (3600 s) and rotating opaque refresh tokens (30 days, stored hashed, reuse revokes the family).
 */
export function createTokenService(opts: TokenServiceOptions): TokenService {
  const { store, key } = opts;
  const clock = opts.clock ?? Date.now;
  const clients = opts.clients ?? DEFAULT_CLIENTS;
  const guard = createLoginGuard(store, opts.throttle ?? DEFAULT_LOGIN_THROTTLE, opts.onLoginEvent);

  /**
   * Runs a credential check under the throttle: refused while blocked; charged before the check
   * (waiting first, if need be, for concurrent attempts to settle); a refusal (AUTH-001) is
   * logged and may turn into API-004, a success gives the charge back.
   */
  async function guarded<T>(grant: LoginEvent['grant'], username: string | null, address: string, check: () => T | Promise<T>): Promise<T> {
    const attempt = await guard.begin(grant, username, address, clock);
    let result: T;
    try {
      result = await check();
    } catch (err) {
      if (err instanceof AppError && err.code === 'AUTH-001') throw await guard.failed(attempt, clock(), err);
      await guard.succeeded(attempt, clock(), false); // not a credential failure (e.g. a store error): no charge
      throw err;
    }
    await guard.succeeded(attempt, clock());
    return result;
  }

  async function respond(
    grant: TokenGrant['grant'],
    user: { uuid: string; username: string; role: Principal['role']; tokenVersion: number },
    refreshToken: string,
    now: number,
  ): Promise<TokenGrant> {
    const tokens: TokenResponse = {
      access_token: await signAccessToken(key, user, now),
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
    };
    return { tokens, grant, user: { uuid: user.uuid, username: user.username, role: user.role } };
  }

  return {
    async grant(req, ctx = {}) {
      const address = ctx.address ?? 'unknown';
      if (!req.grant_type) throw oauthError('USAGE', 'invalid_request', 'the grant type was not specified in the request (grant_type)');
      if (req.grant_type !== 'password' && req.grant_type !== 'refresh_token') {
        throw oauthError('USAGE', 'unsupported_grant_type', `grant_type must be password or refresh_token, got "${req.grant_type}"`);
      }
      const clientId = checkClient(clients, req.client_id, req.client_secret);
      if (req.grant_type === 'password') {
        if (!req.username || !req.password) {
          throw oauthError('USAGE', 'invalid_request', 'missing parameters: "username" and "password" are required');
        }
        const { username, password } = req;
        const onRehash = (o: RehashOutcome) =>
          opts.onLoginEvent?.({
            kind: o.ok ? 'rehashed' : 'rehash-failed',
            grant: 'password',
            username: o.username,
            address,
            at: clock(),
            reason: o.ok ? 'bcrypt hash replaced by argon2' : `bcrypt hash kept: ${o.reason ?? 'unknown error'}`,
          });
        const user = await guarded('password', username, address, () => checkPassword(store, username, password, onRehash));
        const now = clock();
        await store.users.recordLogin(user.id, new Date(now).toISOString());
        return respond('password', user, await issueRefreshToken(store, user, clientId, now), now);
      }
      if (!req.refresh_token) throw oauthError('USAGE', 'invalid_request', 'missing parameter: "refresh_token" is required');
      const presented = req.refresh_token;
      const now = clock();
      const { user, refreshToken } = await guarded('refresh_token', null, address, () =>
        rotateRefreshToken(store, presented, clientId, now),
      );
      // A refresh is a login too: a tablet that keeps refreshing is still in use (docs/supervision.md#accounts).
      await store.users.recordLogin(user.id, new Date(now).toISOString());
      return respond('refresh_token', user, refreshToken, now);
    },
    authenticate(token, whenSigned) {
      return verifyAccessToken(store, key, token, clock(), whenSigned);
    },
  };
}
