/**
 * Checked access tokens remembered (docs/decisions.md, "Less CPU per sync request"), on both
 * stores: a token is accepted again without its signature being checked, but its expiry is
 * compared with the clock every time, a token with another signature or under another key is
 * never taken for it, and the account is read on every call, so a removed or disabled account's
 * token is refused at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken, verifyAccessToken } from '../../../src/core/auth/access-tokens.js';
import { addUser, removeUser } from '../../../src/core/auth/users.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const T0 = Date.UTC(2025, 5, 1, 8, 0, 0);

async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(e instanceof AppError, `expected a refusal, got ${String(e)}`);
  return e.message;
}

async function tokenOf(store: Store, key: Uint8Array, username: string, at = T0): Promise<string> {
  const user = (await store.users.find(username))!;
  return signAccessToken(key, user, at);
}

testOnBothStores('a checked token is taken again until it expires, and only that token under that key', async (store) => {
  const key = randomBytes(32);
  await addUser(store, 'ana', 'Standard User', 'ana-password-123');
  const token = await tokenOf(store, key, 'ana');
  assert.equal((await verifyAccessToken(store, key, token, T0)).username, 'ana');
  assert.equal((await verifyAccessToken(store, key, token, T0 + 60_000)).username, 'ana', 'remembered');
  const last = T0 + ACCESS_TOKEN_TTL_SECONDS * 1000 - 1;
  assert.equal((await verifyAccessToken(store, key, token, last)).username, 'ana');
  assert.match(await refusal(verifyAccessToken(store, key, token, last + 1)), /expired/, 'a remembered token expires on time');
  // A token first seen after its expiry is refused by the full check.
  const late = await tokenOf(store, key, 'ana', T0 + 1000);
  assert.match(await refusal(verifyAccessToken(store, key, late, T0 + 1000 + ACCESS_TOKEN_TTL_SECONDS * 1000)), /expired/);

  // Another signature on the same claims, and the same token under another key: never taken for it.
  const [head, body, signature] = token.split('.');
  const other = signature!.startsWith('A') ? 'B' + signature!.slice(1) : 'A' + signature!.slice(1);
  assert.match(await refusal(verifyAccessToken(store, key, `${head}.${body}.${other}`, T0)), /invalid/);
  assert.match(await refusal(verifyAccessToken(store, randomBytes(32), token, T0)), /invalid/);
  assert.equal((await verifyAccessToken(store, Uint8Array.from(key), token, T0)).username, 'ana', 'the same key bytes: checked afresh');
});

testOnBothStores('a remembered token of a disabled or removed account is refused at once', async (store) => {
  const key = randomBytes(32);
  await addUser(store, 'bo', 'Standard User', 'bo-password-1234');
  await addUser(store, 'cy', 'Standard User', 'cy-password-1234');
  const bo = await tokenOf(store, key, 'bo');
  const cy = await tokenOf(store, key, 'cy');
  await verifyAccessToken(store, key, bo, T0);
  await verifyAccessToken(store, key, cy, T0);
  await store.users.update('bo', { disabled: true });
  assert.match(await refusal(verifyAccessToken(store, key, bo, T0 + 1000)), /no longer active/);
  await removeUser(store, 'cy');
  assert.match(await refusal(verifyAccessToken(store, key, cy, T0 + 1000)), /no longer exists/);
});
