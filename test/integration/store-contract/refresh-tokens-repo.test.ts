/**
 * The refresh tokens repository through the store contract (docs/architecture.md#the-store-contract):
 * every method on the SQLite store and on the PostgreSQL store, with the same answers; and, on
 * PostgreSQL, one token rotated by two transactions at once (docs/decisions.md, "Concurrent
 * writers on the PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../src/store/open-store.js';
import type { NewRefreshToken } from '../../../src/store/refresh-tokens-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const T0 = 1_700_000_000_000;

/** A new token of account `user` in family `family`. */
function token(user: { id: number; username: string }, hash: string, family: string, at = T0): NewRefreshToken {
  return {
    tokenHash: hash,
    familyId: family,
    userId: user.id,
    username: user.username,
    clientId: 'app',
    credentialStamp: 'stamp',
    tokenVersion: 0,
    issuedAt: at,
    expiresAt: at + 1000,
  };
}

async function twoAccounts(store: Store) {
  return [await store.users.insert('ann', 'Standard User', 'h'), await store.users.insert('ben', 'Standard User', 'h')] as const;
}

testOnBothStores('refresh tokens: insert and findByHash', async (store) => {
  const [ann] = await twoAccounts(store);
  await store.refreshTokens.insert({ ...token(ann, 'hash-1', 'fam-1'), clientId: null, tokenVersion: 3 });
  const row = (await store.refreshTokens.findByHash('hash-1'))!;
  assert.equal(typeof row.id, 'number');
  assert.deepEqual(row, {
    id: row.id,
    tokenHash: 'hash-1',
    familyId: 'fam-1',
    userId: ann.id,
    username: 'ann',
    clientId: null,
    credentialStamp: 'stamp',
    tokenVersion: 3,
    issuedAt: T0,
    expiresAt: T0 + 1000,
    replacedAt: null,
    revokedAt: null,
  });
  assert.equal(await store.refreshTokens.findByHash('HASH-1'), undefined);
  assert.equal(await store.refreshTokens.findByHash('nope'), undefined);
  await assert.rejects(store.refreshTokens.insert(token(ann, 'hash-1', 'fam-2')), 'a token hash is stored once');
  await assert.rejects(store.refreshTokens.insert(token({ id: ann.id + 1000, username: 'x' }, 'hash-2', 'fam-2')), 'of no account');
  assert.equal(await store.refreshTokens.findByHash('hash-2'), undefined);
});

testOnBothStores('refresh tokens: rotate replaces once, never a revoked token', async (store) => {
  const [ann] = await twoAccounts(store);
  await store.refreshTokens.insert(token(ann, 'r0', 'fam'));
  const r0 = (await store.refreshTokens.findByHash('r0'))!;
  assert.equal(await store.refreshTokens.rotate(r0.id, token(ann, 'r1', 'fam', T0 + 10), T0 + 10), true);
  assert.equal((await store.refreshTokens.findByHash('r0'))!.replacedAt, T0 + 10);
  const r1 = (await store.refreshTokens.findByHash('r1'))!;
  assert.deepEqual([r1.familyId, r1.issuedAt, r1.replacedAt, r1.revokedAt], ['fam', T0 + 10, null, null]);
  assert.ok(r1.id > r0.id);

  assert.equal(await store.refreshTokens.rotate(r0.id, token(ann, 'r1b', 'fam', T0 + 20), T0 + 20), false, 'already replaced');
  assert.equal(await store.refreshTokens.findByHash('r1b'), undefined, 'the loser stores no successor');
  assert.equal((await store.refreshTokens.findByHash('r0'))!.replacedAt, T0 + 10, 'the first replacement time stays');

  assert.equal(await store.refreshTokens.revokeFamily('fam', T0 + 30), 2);
  assert.equal(await store.refreshTokens.rotate(r1.id, token(ann, 'r2', 'fam', T0 + 40), T0 + 40), false, 'revoked');
  assert.equal(await store.refreshTokens.findByHash('r2'), undefined);
  assert.equal((await store.refreshTokens.findByHash('r1'))!.replacedAt, null);
  assert.equal(await store.refreshTokens.rotate(r1.id + 1000, token(ann, 'r3', 'fam'), T0), false, 'no such token');
  assert.equal(await store.refreshTokens.findByHash('r3'), undefined);

  // A successor that cannot be stored leaves the old token unreplaced.
  await store.refreshTokens.insert(token(ann, 's0', 'fam-s'));
  const s0 = (await store.refreshTokens.findByHash('s0'))!;
  await assert.rejects(store.refreshTokens.rotate(s0.id, token(ann, 'r1', 'fam-s'), T0 + 50));
  assert.equal((await store.refreshTokens.findByHash('s0'))!.replacedAt, null);
});

testOnBothStores('refresh tokens: revokeFamily, revokeUser and purgeExpired', async (store) => {
  const [ann, ben] = await twoAccounts(store);
  await store.refreshTokens.insert(token(ann, 'a1', 'fa'));
  await store.refreshTokens.insert(token(ann, 'a2', 'fa'));
  await store.refreshTokens.insert(token(ann, 'a3', 'fa2', T0 + 500));
  await store.refreshTokens.insert(token(ben, 'b1', 'fb', T0 + 2000));

  assert.equal(await store.refreshTokens.revokeFamily('fa', T0 + 1), 2);
  assert.equal(await store.refreshTokens.revokeFamily('fa', T0 + 2), 0, 'already revoked');
  assert.equal(await store.refreshTokens.revokeFamily('none', T0 + 2), 0);
  assert.equal((await store.refreshTokens.findByHash('a1'))!.revokedAt, T0 + 1, 'the first revocation time stays');
  assert.equal((await store.refreshTokens.findByHash('a3'))!.revokedAt, null);

  assert.equal(await store.refreshTokens.revokeUser(ann.id, T0 + 3), 1, 'only the unrevoked token');
  assert.equal((await store.refreshTokens.findByHash('a3'))!.revokedAt, T0 + 3);
  assert.equal((await store.refreshTokens.findByHash('b1'))!.revokedAt, null, 'another account is untouched');
  assert.equal(await store.refreshTokens.revokeUser(ann.id, T0 + 4), 0);

  // Expiry at or before `now` goes: a1 and a2 expire at T0+1000, a3 at T0+1500, b1 at T0+3000.
  assert.equal(await store.refreshTokens.purgeExpired(T0 + 999), 0);
  assert.equal(await store.refreshTokens.purgeExpired(T0 + 1000), 2);
  assert.equal(await store.refreshTokens.findByHash('a1'), undefined);
  assert.ok(await store.refreshTokens.findByHash('a3'));
  assert.equal(await store.refreshTokens.purgeExpired(T0 + 2999), 1);
  assert.deepEqual((await store.refreshTokens.findByHash('b1'))!.tokenHash, 'b1');

  // An account's tokens go with it.
  assert.equal(await store.users.remove('ben'), true);
  assert.equal(await store.refreshTokens.findByHash('b1'), undefined);
});

testOnBothStores('refresh tokens: a rotation inside a transaction rolls back with it', async (store) => {
  const [ann] = await twoAccounts(store);
  await store.refreshTokens.insert(token(ann, 't0', 'fam'));
  const t0 = (await store.refreshTokens.findByHash('t0'))!;
  await assert.rejects(
    store.transaction(async (tx) => {
      assert.equal(await tx.refreshTokens.rotate(t0.id, token(ann, 't1', 'fam'), T0 + 5), true);
      assert.ok(await tx.refreshTokens.findByHash('t1'));
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.equal((await store.refreshTokens.findByHash('t0'))!.replacedAt, null);
  assert.equal(await store.refreshTokens.findByHash('t1'), undefined);

  // In a transaction, a rotation that fails leaves the transaction usable and the rest committed.
  const won = await store.transaction(async (tx) => {
    await tx.refreshTokens.insert(token(ann, 'u0', 'fam-u'));
    await assert.rejects(tx.refreshTokens.rotate(t0.id, token(ann, 'u0', 'fam'), T0 + 6));
    return tx.refreshTokens.rotate(t0.id, token(ann, 't1', 'fam'), T0 + 7);
  });
  assert.equal(won, true);
  assert.equal((await store.refreshTokens.findByHash('t0'))!.replacedAt, T0 + 7);
  assert.ok(await store.refreshTokens.findByHash('u0'));
});

test('refresh tokens [postgresql]: one token rotated by two transactions at once: exactly one wins', () =>
  onPostgresStore(async (store) => {
    const [ann] = await twoAccounts(store);
    await store.refreshTokens.insert(token(ann, 'x0', 'fam'));
    const x0 = (await store.refreshTokens.findByHash('x0'))!;
    const out = await raceTwoTransactions(
      store,
      async (tx) => {
        assert.equal((await tx.refreshTokens.findByHash('x0'))!.replacedAt, null);
        return tx.refreshTokens.rotate(x0.id, token(ann, 'xA', 'fam'), T0 + 1);
      },
      async (tx) => {
        // Read before the first commits: it still looks unreplaced to this transaction.
        assert.equal((await tx.refreshTokens.findByHash('x0'))!.replacedAt, null);
        return tx.refreshTokens.rotate(x0.id, token(ann, 'xB', 'fam'), T0 + 2);
      },
    );
    assert.deepEqual(
      [out.first, out.second, out.secondWaited],
      [{ status: 'fulfilled', value: true }, { status: 'fulfilled', value: false }, true],
    );
    assert.equal((await store.refreshTokens.findByHash('x0'))!.replacedAt, T0 + 1);
    assert.ok(await store.refreshTokens.findByHash('xA'));
    assert.equal(await store.refreshTokens.findByHash('xB'), undefined, 'the loser stored no successor');
  }));
