import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Store } from '../../store/open-store.js';
import type { Role } from '../../store/users-repo.js';
import { oauthError } from './oauth-error.js';

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
}

/**
 * Signs an access token (JWT) for a user: claims sub, role, ver, jti, iat, exp (+ iss). `ver` is
 * the account's token version: disabling the account bumps it, which retires the token for good.
 */
export async function signAccessToken(
  key: Uint8Array,
  user: { username: string; role: Role; tokenVersion: number },
  nowMs: number,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ role: user.role, ver: user.tokenVersion })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(user.username)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(key);
}

/**
 * Verifies an access token and returns the caller. The role comes from the account as it is now,
 * not from the token: disabling or deleting an account, or changing its role, takes effect on the
 * next request rather than when the token expires. Every failure is 401 `invalid_token`.
 */
export async function verifyAccessToken(store: Store, key: Uint8Array, token: string, nowMs: number): Promise<Principal> {
  let sub: string;
  let jti: string;
  let ver: unknown;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: ISSUER,
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
    });
    sub = payload.sub!;
    jti = payload.jti!;
    ver = payload.ver ?? 0;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw oauthError('AUTH-003', 'invalid_token', 'the access token has expired');
    throw oauthError('AUTH-003', 'invalid_token', 'the access token is invalid');
  }
  // One indexed read per request (users.username is UNIQUE): the price of revocable JWTs.
  const user = store.users.find(sub);
  if (!user || user.disabled) throw oauthError('AUTH-003', 'invalid_token', 'the account of this access token is no longer active');
  if (ver !== user.tokenVersion)
    throw oauthError('AUTH-003', 'invalid_token', 'the access token was issued before the account was disabled; log in again');
  return { username: user.username, role: user.role, tokenId: jti };
}
