import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import type { Role } from '../../store/users-repo.js';
import type { RoleGrant } from '../../store/roles-repo.js';
import { oauthError } from './oauth-error.js';
import { hmacKey, rememberClaims, rememberedClaims, type CheckedClaims } from './verified-tokens.js';

let joseModule: Promise<typeof import('jose')> | undefined;
/** jose, imported when a token is first signed or checked: CLI commands never need it (docs/cli.md#start-up-time). */
const loadJose = () => (joseModule ??= import('jose'));

/** Access token lifetime (docs/http-api.md#authentication): 3600 s. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** The only signing algorithm accepted: a token claiming any other (`none` included) is refused. */
const ACCESS_TOKEN_ALG = 'HS256';

const ISSUER = 'sds';

/** Who is calling, as established from a valid access token and the current account row. */
export interface Principal {
  username: string;
  role: Role;
  tokenId: string;
  /**
   * What the role holds, read with the account (one statement: docs/decisions.md, "A download
   * page in one round trip"); undefined when the role no longer exists.
   */
  grant?: RoleGrant;
}

/**
 * Signs an access token (JWT) for a user: claims sub, role, ver, jti, iat, exp (+ iss). `sub` is the
 * account's UUID, never its name: a name can be given to a new account once the old one is
 * removed, a UUID cannot, so a removed account's tokens never become another's. `ver` is the
 * account's token version: disabling the account or changing its role bumps it, which retires the
 * token for good (docs/http-api.md#what-ends-a-token).
 */
export async function signAccessToken(
  key: Uint8Array,
  user: { uuid: string; role: Role; tokenVersion: number },
  nowMs: number,
): Promise<string> {
  const { SignJWT } = await loadJose();
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ role: user.role, ver: user.tokenVersion })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(user.uuid)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(await hmacKey(key));
}

/**
 * The claims of an access token whose signature, issuer and expiry hold at `nowMs`; 401
 * `invalid_token` otherwise. A token checked before by this process is not checked again, only
 * its expiry (verified-tokens.ts).
 */
async function checkedClaims(key: Uint8Array, token: string, nowMs: number): Promise<CheckedClaims> {
  const known = rememberedClaims(key, token);
  if (known) {
    // As jose decides it: expired once the clock reaches exp (no tolerance).
    if (Math.floor(nowMs / 1000) >= known.exp) throw oauthError('AUTH-003', 'invalid_token', 'the access token has expired');
    return known;
  }
  const { errors: joseErrors, jwtVerify } = await loadJose();
  try {
    const { payload } = await jwtVerify(token, await hmacKey(key), {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: ISSUER,
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
    });
    const claims = { sub: payload.sub!, jti: payload.jti!, ver: payload.ver ?? 0, exp: payload.exp! };
    rememberClaims(key, token, claims);
    return claims;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw oauthError('AUTH-003', 'invalid_token', 'the access token has expired');
    throw oauthError('AUTH-003', 'invalid_token', 'the access token is invalid');
  }
}

/**
 * Verifies an access token and returns the caller. The account is found by the UUID the token
 * names and its role read as it is now: removing or disabling the account, or changing its role,
 * takes effect on the next request rather than when the token expires. Every failure is 401
 * `invalid_token`. `whenSigned` runs once the token's signature and times hold, before the
 * account is read: a read the request will need may start then, beside the account's
 * (docs/decisions.md, "A download page beside its account").
 */
export async function verifyAccessToken(
  store: Store,
  key: Uint8Array,
  token: string,
  nowMs: number,
  whenSigned?: () => void,
): Promise<Principal> {
  const { sub, jti, ver } = await checkedClaims(key, token, nowMs);
  whenSigned?.();
  // One indexed read per request (users.uuid is UNIQUE): the price of revocable JWTs. A token of
  // an older release named the user name, which no UUID equals: it is refused, and its holder refreshes.
  // The role's grant comes with the account: the rights check of the request then asks nothing more.
  const found = await store.users.findByUuidWithGrant(sub);
  const user = found?.user;
  if (!user) throw oauthError('AUTH-003', 'invalid_token', 'the account of this access token no longer exists; log in again');
  if (user.disabled) throw oauthError('AUTH-003', 'invalid_token', 'the account of this access token is no longer active');
  if (ver !== user.tokenVersion)
    throw oauthError(
      'AUTH-003',
      'invalid_token',
      'the access token was issued before the account was disabled or its role changed; log in again',
    );
  return { username: user.username, role: user.role, tokenId: jti, grant: found.grant };
}
