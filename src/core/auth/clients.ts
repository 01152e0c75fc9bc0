import { createHash, timingSafeEqual } from 'node:crypto';
import { oauthError } from './oauth-error.js';

/** The client the CSPro data-collection client (CSEntry) sends, as seeded by the old server. */
export const DEFAULT_CLIENTS: Readonly<Record<string, string>> = { cspro_android: 'cspro' };

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Checks the client credentials of a token request. The spec's token request carries none, so a
 * request without `client_id` is accepted as a public client (null). A request that names a
 * client must name a configured one with its secret; anything else is `invalid_client`, never a
 * silent fallback to "no client". Secrets are compared in constant time (over their digests, so
 * the length does not leak either).
 */
export function checkClient(
  clients: Readonly<Record<string, string>>,
  clientId: string | undefined,
  secret: string | undefined,
): string | null {
  if (clientId === undefined || clientId === '') {
    if (secret !== undefined && secret !== '') throw oauthError('AUTH-002', 'invalid_client', 'client_secret was sent without client_id');
    return null;
  }
  const expected = Object.hasOwn(clients, clientId) ? clients[clientId] : undefined;
  const ok = timingSafeEqual(digest(expected ?? '\u0000unknown-client'), digest(secret ?? ''));
  if (expected === undefined || !ok) throw oauthError('AUTH-002', 'invalid_client', 'client authentication failed');
  return clientId;
}
