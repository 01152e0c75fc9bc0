import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AppError } from '../../shared/errors.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { RefreshTokenRow } from '../../store/refresh-tokens-repo.js';
import type { UserRow } from '../../store/users-repo.js';
import { oauthError } from './oauth-error.js';

/** Refresh token lifetime (docs/http-api.md#authentication): 30 days, counted again from every rotation. */
const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** Only this digest is stored; the token is 256 random bits, so a plain hash suffices. */
function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A fingerprint of the account's password hash kept with each refresh token: after a password
 * change the fingerprint differs and the old logins can no longer be refreshed.
 */
function credentialStamp(passwordHash: string): string {
  return createHash('sha256').update(passwordHash, 'utf8').digest('hex').slice(0, 32);
}

type Account = UserRow & { passwordHash: string };

/**
 * Why the login of a refresh token has ended since it was issued, or null while it holds: the
 * account was removed (a new one of the same name has another id), disabled, or given another role
 * (both bump its token version), or its password changed (docs/http-api.md#what-ends-a-token).
 */
function whyEnded(user: Account | undefined, row: RefreshTokenRow): string | null {
  if (!user || user.id !== row.userId) return 'the account of this refresh token no longer exists';
  if (user.disabled || user.tokenVersion !== row.tokenVersion) return 'the account was disabled or its role changed since login';
  if (credentialStamp(user.passwordHash) !== row.credentialStamp) return "the account's password changed since login";
  return null;
}

/** Starts a new family (one per password login) and returns its first refresh token. */
export async function issueRefreshToken(store: StoreScope, user: Account, clientId: string | null, nowMs: number): Promise<string> {
  await store.refreshTokens.purgeExpired(nowMs);
  const token = randomBytes(32).toString('base64url');
  await store.refreshTokens.insert({
    tokenHash: hashRefreshToken(token),
    familyId: randomUUID(),
    userId: user.id,
    username: user.username,
    clientId,
    credentialStamp: credentialStamp(user.passwordHash),
    tokenVersion: user.tokenVersion,
    issuedAt: nowMs,
    expiresAt: nowMs + REFRESH_TOKEN_TTL_MS,
  });
  return token;
}

/**
 * Exchanges a refresh token for its successor and returns the account. The presented token is
 * marked replaced; presenting a replaced token again means two parties hold it (a leak), so the
 * whole family is revoked and both must log in again (RFC 9700 §4.14.2). Every failure is the
 * spec's `invalid_grant`.
 */
export async function rotateRefreshToken(
  store: StoreScope,
  token: string,
  clientId: string | null,
  nowMs: number,
): Promise<{ user: Account; refreshToken: string }> {
  // The token is read, checked and rotated (or its family revoked) in one transaction, so no other
  // request can rotate or revoke it in between. A refusal is returned, not thrown, from the
  // transaction: a revocation made on the way to it must commit.
  const out = await store.transaction(async (tx): Promise<{ user: Account; refreshToken: string } | { refused: AppError }> => {
    const row = await tx.refreshTokens.findByHash(hashRefreshToken(token));
    if (!row) return { refused: oauthError('AUTH-001', 'invalid_grant', 'invalid refresh token') };
    if (row.revokedAt !== null) return { refused: oauthError('AUTH-001', 'invalid_grant', 'the refresh token was revoked; log in again') };
    const reuse = async () => {
      await tx.refreshTokens.revokeFamily(row.familyId, nowMs);
      return {
        refused: oauthError(
          'AUTH-001',
          'invalid_grant',
          'the refresh token was already used; every token of this login is revoked, log in again',
        ),
      };
    };
    if (row.replacedAt !== null) return reuse();
    if (row.expiresAt <= nowMs) return { refused: oauthError('AUTH-001', 'invalid_grant', 'the refresh token has expired; log in again') };
    if (row.clientId !== clientId)
      return { refused: oauthError('AUTH-001', 'invalid_grant', 'the refresh token was issued to another client') };
    const user = await tx.users.find(row.username);
    const ended = whyEnded(user, row);
    if (!user || ended !== null) {
      await tx.refreshTokens.revokeFamily(row.familyId, nowMs);
      return { refused: oauthError('AUTH-001', 'invalid_grant', `${ended ?? 'the account is gone'}; log in again`) };
    }
    const next = randomBytes(32).toString('base64url');
    const won = await tx.refreshTokens.rotate(
      row.id,
      {
        tokenHash: hashRefreshToken(next),
        familyId: row.familyId,
        userId: user.id,
        username: user.username,
        clientId,
        credentialStamp: row.credentialStamp,
        tokenVersion: row.tokenVersion,
        issuedAt: nowMs,
        expiresAt: nowMs + REFRESH_TOKEN_TTL_MS,
      },
      nowMs,
    );
    // Losing the race (another writer rotated this token since our read) would mean reuse.
    if (!won) return reuse();
    return { user, refreshToken: next };
  });
  if ('refused' in out) throw out.refused;
  return out;
}
