/**
 * The profile of an account through the store contract (docs/supervision.md#accounts): insert with
 * a profile, setProfile of some fields (others kept, null clears, none given changes nothing),
 * on the SQLite store and on the PostgreSQL store, with the same answers.
 */
import assert from 'node:assert/strict';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const NONE = { firstName: null, lastName: null, email: null, phone: null };

testOnBothStores('users: insert with a profile, setProfile of some fields, and of none', async (store) => {
  const amina = await store.users.insert('amina01', 'Standard User', 'h', {
    firstName: 'Amina',
    lastName: 'Diallo',
    email: 'amina@example.org',
    phone: null,
  });
  assert.deepEqual(amina.profile, { firstName: 'Amina', lastName: 'Diallo', email: 'amina@example.org', phone: null });
  assert.deepEqual((await store.users.insert('plain', 'API', 'h')).profile, NONE);

  assert.equal(await store.users.setProfile('amina01', { phone: '+221 1', email: null }), true);
  const after = await store.users.find('amina01');
  assert.deepEqual(after?.profile, { firstName: 'Amina', lastName: 'Diallo', email: null, phone: '+221 1' });
  assert.equal(after?.role, 'Standard User', 'the other fields stay');
  assert.equal(after?.passwordHash, 'h');
  assert.ok(after!.updatedAt >= amina.updatedAt);
  assert.deepEqual((await store.users.find('plain'))?.profile, NONE, 'another account is untouched');

  assert.equal(await store.users.setProfile('amina01', {}), true, 'nothing to set: true for an account that exists');
  assert.equal(await store.users.setProfile('nobody', {}), false);
  assert.equal(await store.users.setProfile('nobody', { firstName: 'X' }), false);
  assert.deepEqual(
    (await store.users.listWithHashes()).map((u) => [u.username, u.profile.firstName]),
    [
      ['amina01', 'Amina'],
      ['plain', null],
    ],
  );
});
