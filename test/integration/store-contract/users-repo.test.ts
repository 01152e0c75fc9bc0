/**
 * The users repository through the store contract (docs/architecture.md#the-store-contract): every
 * method on the SQLite store and on the PostgreSQL store, with the same answers; and, on
 * PostgreSQL, the check-then-write paths under two transactions at once (docs/decisions.md,
 * "Concurrent writers on the PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

testOnBothStores('users: insert, find, findByUuid and listWithHashes', async (store) => {
  const bob = await store.users.insert('bob', 'Standard User', '$argon2id$bob');
  assert.equal(typeof bob.id, 'number');
  assert.match(bob.uuid, UUID);
  assert.match(bob.createdAt, ISO);
  assert.deepEqual(bob, {
    id: bob.id,
    uuid: bob.uuid,
    username: 'bob',
    role: 'Standard User',
    disabled: false,
    tokenVersion: 0,
    lastLoginAt: null,
    createdAt: bob.createdAt,
    updatedAt: bob.createdAt,
    profile: { firstName: null, lastName: null, email: null, phone: null },
  });
  assert.deepEqual(await store.users.find('bob'), { ...bob, passwordHash: '$argon2id$bob' });
  assert.equal(await store.users.find('Bob'), undefined, 'names are matched exactly');
  assert.equal(await store.users.find('nobody'), undefined);
  assert.deepEqual(await store.users.findByUuid(bob.uuid), { ...bob, passwordHash: '$argon2id$bob' });
  assert.equal(await store.users.findByUuid('00000000-0000-4000-8000-000000000000'), undefined);

  for (const name of ['ana', '_x', 'Zed', 'alice']) await store.users.insert(name, 'API', `h-${name}`);
  const all = await store.users.listWithHashes();
  assert.deepEqual(
    all.map((u) => [u.username, u.role, u.passwordHash]),
    [
      ['Zed', 'API', 'h-Zed'],
      ['_x', 'API', 'h-_x'],
      ['alice', 'API', 'h-alice'],
      ['ana', 'API', 'h-ana'],
      ['bob', 'Standard User', '$argon2id$bob'],
    ],
    'byte order, as SQLite sorts',
  );
  assert.equal(new Set(all.map((u) => u.uuid)).size, 5);
  assert.equal(new Set(all.map((u) => u.id)).size, 5);

  // A taken name is refused and the account is left as it was.
  await assert.rejects(store.users.insert('bob', 'Administrator', 'other'));
  assert.deepEqual(await store.users.find('bob'), { ...bob, passwordHash: '$argon2id$bob' });

  // A removed name inserted again is a new account with a new uuid.
  assert.equal(await store.users.remove('bob'), true);
  assert.equal(await store.users.remove('bob'), false);
  assert.equal(await store.users.find('bob'), undefined);
  assert.equal(await store.users.findByUuid(bob.uuid), undefined);
  const again = await store.users.insert('bob', 'Standard User', 'h2');
  assert.notEqual(again.uuid, bob.uuid);
  assert.notEqual(again.id, bob.id);
});

testOnBothStores('users: update changes what it is given and bumps the token version on a new role', async (store) => {
  const u = await store.users.insert('carol', 'Standard User', 'h0');
  await store.users.update('carol', { passwordHash: 'h1' });
  let now = (await store.users.find('carol'))!;
  assert.deepEqual([now.role, now.passwordHash, now.disabled, now.tokenVersion], ['Standard User', 'h1', false, 0]);
  assert.ok(now.updatedAt >= u.updatedAt);
  assert.equal(now.createdAt, u.createdAt);

  await store.users.update('carol', { role: 'Standard User' });
  assert.equal((await store.users.find('carol'))!.tokenVersion, 0, 'the same role is no change of role');
  await store.users.update('carol', { role: 'Administrator' });
  now = (await store.users.find('carol'))!;
  assert.deepEqual([now.role, now.passwordHash, now.tokenVersion], ['Administrator', 'h1', 1]);

  await store.users.update('carol', { disabled: true });
  now = (await store.users.find('carol'))!;
  assert.deepEqual([now.role, now.disabled, now.tokenVersion], ['Administrator', true, 1], 'update does not bump on disable');
  await store.users.update('carol', { role: 'API', passwordHash: 'h2', disabled: false });
  now = (await store.users.find('carol'))!;
  assert.deepEqual([now.role, now.passwordHash, now.disabled, now.tokenVersion], ['API', 'h2', false, 2]);
  await store.users.update('carol', {});
  assert.deepEqual(
    [(await store.users.find('carol'))!.role, (await store.users.find('carol'))!.passwordHash],
    ['API', 'h2'],
    'an empty change keeps everything',
  );

  await store.users.update('nobody', { role: 'API' });
  assert.equal(await store.users.find('nobody'), undefined, 'an update of no account creates none');
});

testOnBothStores('users: setDisabled, replaceHash and recordLogin', async (store) => {
  const u = await store.users.insert('dave', 'Standard User', 'h0');
  assert.equal(await store.users.setDisabled('dave', true), true);
  let now = (await store.users.find('dave'))!;
  assert.deepEqual([now.disabled, now.tokenVersion], [true, 1]);
  assert.equal(await store.users.setDisabled('dave', true), true);
  assert.equal((await store.users.find('dave'))!.tokenVersion, 2, 'each disable bumps');
  assert.equal(await store.users.setDisabled('dave', false), true);
  now = (await store.users.find('dave'))!;
  assert.deepEqual([now.disabled, now.tokenVersion], [false, 2], 'enabling keeps the old tokens refused');
  assert.equal(await store.users.setDisabled('nobody', true), false);
  assert.equal(await store.users.setDisabled('nobody', false), false);

  assert.equal(await store.users.replaceHash(u.id, 'wrong', 'h1'), false);
  assert.equal((await store.users.find('dave'))!.passwordHash, 'h0');
  assert.equal(await store.users.replaceHash(u.id, 'h0', 'h1'), true);
  assert.equal((await store.users.find('dave'))!.passwordHash, 'h1');
  assert.equal(await store.users.replaceHash(u.id, 'h0', 'h2'), false, 'the old hash is no longer there');
  assert.equal(await store.users.replaceHash(u.id + 1000, 'h1', 'h2'), false);

  await store.users.recordLogin(u.id, '2024-05-01T10:00:00.000Z');
  assert.equal((await store.users.find('dave'))!.lastLoginAt, '2024-05-01T10:00:00.000Z');
  await store.users.recordLogin(u.id + 1000, '2024-05-01T11:00:00.000Z');
  assert.equal((await store.users.find('dave'))!.lastLoginAt, '2024-05-01T10:00:00.000Z');
});

testOnBothStores('users: findIgnoringCase folds ASCII letters only, as SQLite NOCASE', async (store) => {
  for (const name of ['ana', 'Ana', 'ANA', 'anna', 'Éva', 'éva', 'a_a']) await store.users.insert(name, 'Standard User', 'h');
  const names = async (n: string) => (await store.users.findIgnoringCase(n)).map((u) => u.username);
  assert.deepEqual(await names('aNa'), ['ANA', 'Ana', 'ana']);
  assert.deepEqual(await names('ÉVA'), ['Éva'], 'É and é are different letters to NOCASE');
  assert.deepEqual(await names('éVa'), ['éva']);
  assert.deepEqual(await names('A_A'), ['a_a']);
  assert.deepEqual(await names('aXa'), [], '_ is no wildcard');
  assert.deepEqual(await names('nobody'), []);
  const [one] = await store.users.findIgnoringCase('ANNA');
  assert.deepEqual(Object.keys(one!).sort(), [
    'createdAt',
    'disabled',
    'id',
    'lastLoginAt',
    'profile',
    'role',
    'tokenVersion',
    'updatedAt',
    'username',
    'uuid',
  ]);
});

testOnBothStores('users: anyBcryptHash finds a stored bcrypt hash, the first account first', async (store) => {
  assert.equal(await store.users.anyBcryptHash(), undefined);
  await store.users.insert('a', 'Standard User', '$argon2id$v=19$x');
  assert.equal(await store.users.anyBcryptHash(), undefined);
  await store.users.insert('z', 'Standard User', '$2y$10$first');
  await store.users.insert('b', 'Standard User', '$2b$10$second');
  assert.equal(await store.users.anyBcryptHash(), '$2y$10$first');
  await store.users.update('z', { passwordHash: '$argon2id$v=19$y' });
  assert.equal(await store.users.anyBcryptHash(), '$2b$10$second');
});

testOnBothStores('users: CSWeb records', async (store) => {
  const a = await store.users.insert('amy', 'Standard User', 'h');
  const z = await store.users.insert('zoe', 'Standard User', 'h');
  assert.equal(await store.users.cswebRecord(a.id), undefined);
  assert.deepEqual(await store.users.cswebUsernames(), []);
  const rec = {
    cswebUsername: 'ZOE',
    passwordHash: '$2y$10$zoe',
    cswebRole: 'Interviewer',
    firstName: 'Zoë',
    lastName: null,
    email: 'zoe@example.org',
    phone: null,
  };
  await store.users.putCswebRecord(z.id, rec);
  await store.users.putCswebRecord(a.id, { ...rec, cswebUsername: 'amy', firstName: null });
  const first = (await store.users.cswebRecord(z.id))!;
  assert.match(first.importedAt, ISO);
  assert.deepEqual(first, { ...rec, importedAt: first.importedAt, updatedAt: first.importedAt });
  assert.deepEqual(await store.users.cswebUsernames(), ['amy', 'zoe']);

  await store.users.putCswebRecord(z.id, { ...rec, cswebRole: 'Supervisor', email: null, phone: '+1 555' });
  const second = (await store.users.cswebRecord(z.id))!;
  assert.deepEqual(second, {
    ...rec,
    cswebRole: 'Supervisor',
    email: null,
    phone: '+1 555',
    importedAt: first.importedAt,
    updatedAt: second.updatedAt,
  });
  assert.ok(second.updatedAt >= first.updatedAt);

  await assert.rejects(store.users.putCswebRecord(a.id + z.id + 1000, rec), 'a record of no account is refused');
  assert.equal(await store.users.remove('zoe'), true);
  assert.equal(await store.users.cswebRecord(z.id), undefined, 'the record goes with its account');
  assert.deepEqual(await store.users.cswebUsernames(), ['amy']);
});

testOnBothStores('users: a transaction commits or rolls back its account changes together', async (store) => {
  await store.users.insert('erin', 'Standard User', 'h0');
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.users.insert('frank', 'API', 'h');
      await tx.users.update('erin', { role: 'Administrator' });
      assert.equal((await tx.users.find('frank'))!.role, 'API', 'the transaction sees its own writes');
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.equal(await store.users.find('frank'), undefined);
  assert.equal((await store.users.find('erin'))!.role, 'Standard User');

  const made = await store.transaction(async (tx) => {
    if (await tx.users.find('frank')) throw new Error('unexpected');
    const u = await tx.users.insert('frank', 'API', 'h');
    // A savepoint rolled back alone: the account made before it stays.
    await assert.rejects(
      tx.transaction(async (inner) => {
        await inner.users.setDisabled('frank', true);
        throw new Error('inner');
      }),
      /inner/,
    );
    return u;
  });
  assert.deepEqual(await store.users.find('frank'), { ...made, passwordHash: 'h' });
});

test('users [postgresql]: two creations of one name at once: one account, the other gets CONFLICT', () =>
  onPostgresStore(async (store) => {
    const create = (hash: string) => async (tx: Parameters<Parameters<typeof store.transaction>[0]>[0]) => {
      if (await tx.users.find('gina')) throw new AppError('CONFLICT', 'user gina already exists');
      return tx.users.insert('gina', 'Standard User', hash);
    };
    const out = await raceTwoTransactions(store, create('h1'), create('h2'));
    assert.equal(out.first.status, 'fulfilled');
    assert.equal(out.secondWaited, true, 'the second insert waited for the first');
    assert.equal(out.second.status, 'rejected');
    const err = (out.second as PromiseRejectedResult).reason as AppError;
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'CONFLICT');
    assert.equal(err.message, 'user gina already exists');
    assert.deepEqual(
      (await store.users.listWithHashes()).map((u) => [u.username, u.passwordHash]),
      [['gina', 'h1']],
    );
  }));

test('users [postgresql]: two updates of one account at once both land (no lost role change)', () =>
  onPostgresStore(async (store) => {
    await store.users.insert('hank', 'Standard User', 'h0');
    const out = await raceTwoTransactions(
      store,
      (tx) => tx.users.update('hank', { role: 'Administrator' }),
      (tx) => tx.users.update('hank', { passwordHash: 'h1' }),
    );
    assert.equal(out.first.status, 'fulfilled');
    assert.equal(out.second.status, 'fulfilled');
    assert.equal(out.secondWaited, true);
    const u = (await store.users.find('hank'))!;
    assert.deepEqual([u.role, u.passwordHash, u.tokenVersion], ['Administrator', 'h1', 1]);
  }));

test('users [postgresql]: two hash replacements from one hash at once: exactly one wins', () =>
  onPostgresStore(async (store) => {
    const u = await store.users.insert('ivy', 'Standard User', 'h0');
    const out = await raceTwoTransactions(
      store,
      (tx) => tx.users.replaceHash(u.id, 'h0', 'hA'),
      (tx) => tx.users.replaceHash(u.id, 'h0', 'hB'),
    );
    assert.deepEqual(
      [out.first, out.second, out.secondWaited],
      [{ status: 'fulfilled', value: true }, { status: 'fulfilled', value: false }, true],
    );
    assert.equal((await store.users.find('ivy'))!.passwordHash, 'hA');
  }));
