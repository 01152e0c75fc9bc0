/**
 * Importing CSWeb's accounts from a real MariaDB database shaped like CSWeb 8.0.1's, then logging
 * in over HTTP against a real server with the passwords CSWeb knew.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { importCswebUsers, type CswebUsersResult } from '../../../src/core/csweb/index.js';
import { listUsers } from '../../../src/core/auth/users.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { storeKindOf, storeSql } from '../../helpers/temp-home.js';
import {
  addCswebDictionary,
  addCswebRole,
  addCswebUser,
  createCswebUsersDb,
  phpBcrypt,
  type CswebUsersDb,
} from '../../helpers/csweb-users-fixture.js';

let db: CswebUsersDb;
let s: TestServer;

const PW = {
  ann: 'ann-field-pass', // Standard User, cost 8 (POST /api/users)
  boss: 'boss-admin-pass', // Administrator, cost 10 (the wizard)
  sup: 'supervisor-pass',
  acct: 'accounts-pass-1',
  admin: 'csweb-admin-pass',
  clash: 'clash-password',
  tries: 'tries-password',
  pair: 'pair-password-1',
  stuck: 'stuck-password-1',
};

before(async () => {
  db = await createCswebUsersDb();
  s = await startTestServer();
  const hh = await addCswebDictionary(db.conn, 'HHSURVEY_DICT');
  const simple = await addCswebDictionary(db.conn, 'SIMPLECAPI_DICT');
  // The research dump's Supervisor: data_all and reports_all, full sync on one dictionary, download only on the other.
  const supervisor = await addCswebRole(
    db.conn,
    'Supervisor',
    [1, 5],
    [
      { dictionaryId: simple, permissionId: 6 },
      { dictionaryId: simple, permissionId: 7 },
      { dictionaryId: hh, permissionId: 7 },
    ],
  );
  const accounts = await addCswebRole(db.conn, 'Accounts', [3], []);
  await addCswebUser(db.conn, {
    username: 'ann',
    password: await phpBcrypt(PW.ann, 8),
    role: 1,
    first: 'Ann',
    last: 'Field',
    phone: '+1 555 0100',
  });
  await addCswebUser(db.conn, { username: 'Boss', password: await phpBcrypt(PW.boss, 10), role: 2, email: 'boss@example.org' });
  await addCswebUser(db.conn, { username: 'sup', password: await phpBcrypt(PW.sup, 8), role: supervisor });
  await addCswebUser(db.conn, { username: 'acct', password: await phpBcrypt(PW.acct, 8), role: accounts });
  await addCswebUser(db.conn, { username: 'tries', password: await phpBcrypt(PW.tries, 8), role: 1 });
  await addCswebUser(db.conn, { username: 'pair', password: await phpBcrypt(PW.pair, 8), role: 1 });
  await addCswebUser(db.conn, { username: 'stuck', password: await phpBcrypt(PW.stuck, 8), role: 1 });
  // The test server already has `admin` (made in sds) and `interviewer`.
  await addCswebUser(db.conn, { username: 'admin', password: await phpBcrypt(PW.admin, 10), role: 2 });
  await addCswebUser(db.conn, { username: 'Interviewer', password: await phpBcrypt(PW.clash, 8), role: 1 });
  await addCswebUser(db.conn, { username: 'md5user', password: '5f4dcc3b5aa765d61d8327deb882cf99', role: 1 });
});

after(async () => {
  await s?.close();
  await db?.drop();
});

const token = (username: string, password: string) =>
  fetch(`${s.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password }),
  });
const refresh = (refresh_token: string) =>
  fetch(`${s.base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token }),
  });
const hashOf = async (username: string) => (await s.store.users.find(username))?.passwordHash ?? '';
const outcome = (r: CswebUsersResult, username: string) => r.users.find((u) => u.username === username);
const codes = (r: CswebUsersResult) => r.report.map((e) => [e.code, e.user ?? e.dictionary ?? null]);

describe('importing CSWeb accounts', () => {
  test('a dry run says what it would do and writes nothing', async () => {
    const before = (await s.store.users.listWithHashes()).map((u) => u.username);
    const r = await importCswebUsers(s.store, db.conn, { dryRun: true });
    assert.equal(r.dryRun, true);
    assert.deepEqual([r.added, r.updated, r.unchanged, r.skipped], [7, 0, 0, 3]);
    assert.deepEqual(
      (await s.store.users.listWithHashes()).map((u) => u.username),
      before,
    );
  });

  test('the import keeps the bcrypt hashes, maps the roles and reports what it could not carry', async () => {
    const r = await importCswebUsers(s.store, db.conn);
    assert.deepEqual([r.added, r.updated, r.unchanged, r.skipped], [7, 0, 0, 3]);
    assert.deepEqual(
      r.users.map((u) => [u.username, u.action, u.role ?? null]),
      [
        ['acct', 'add', 'Administrator'],
        ['admin', 'skip', null],
        ['ann', 'add', 'Standard User'],
        ['Boss', 'add', 'Administrator'],
        ['Interviewer', 'skip', null],
        ['md5user', 'skip', null],
        ['pair', 'add', 'Standard User'],
        ['stuck', 'add', 'Standard User'],
        ['sup', 'add', 'Standard User'],
        ['tries', 'add', 'Standard User'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]), 'en', { sensitivity: 'base' })),
    );
    const [row] = (await db.conn.query('SELECT password FROM cspro_users WHERE username = ?', ['ann'])) as unknown as [
      { password: string }[],
    ];
    assert.equal(await hashOf('ann'), row![0]!.password, 'the hash is copied unchanged');
    assert.match(await hashOf('ann'), /^\$2y\$08\$/);
    assert.match(await hashOf('Boss'), /^\$2y\$10\$/);
    assert.equal((await s.store.users.find('Boss'))!.role, 'Administrator');
    assert.equal((await s.store.users.find('ann'))!.role, 'Standard User');
    const record = (await s.store.users.cswebRecord((await s.store.users.find('ann'))!.id))!;
    assert.deepEqual(
      [record.firstName, record.lastName, record.email, record.phone, record.cswebRole],
      ['Ann', 'Field', null, '+1 555 0100', 'Standard User'],
    );
    // The account itself shows them too (docs/supervision.md#accounts).
    assert.deepEqual((await s.store.users.find('ann'))!.profile, {
      firstName: 'Ann',
      lastName: 'Field',
      email: null,
      phone: '+1 555 0100',
    });
    assert.equal((await s.store.users.cswebRecord((await s.store.users.find('Boss'))!.id))!.email, 'boss@example.org');

    const report = codes(r);
    // Role lines: the Supervisor lost reports_all and gained upload on HHSURVEY_DICT; Accounts
    // (users_all) became Administrator and gained the rest; the built-in Standard User cannot
    // delete dictionaries in sds.
    const supervisor = r.report.filter((e) => e.message.startsWith('CSWeb role "Supervisor"'));
    assert.deepEqual(
      supervisor.map((e) => [e.code, e.dictionary ?? null]),
      [
        ['CSWEB_ROLE_NARROWED', null],
        ['CSWEB_ROLE_WIDENED', 'HHSURVEY_DICT'],
      ],
    );
    assert.match(supervisor[0]!.message, /reports_all/);
    assert.match(supervisor[1]!.message, /\(upload\)/);
    const accounts = r.report.filter((e) => e.message.startsWith('CSWeb role "Accounts"'));
    // Five global rights it lacked, and sync on each of the two dictionaries.
    assert.equal(accounts.length, 7);
    assert.deepEqual(
      accounts.filter((e) => e.dictionary).map((e) => e.dictionary),
      ['HHSURVEY_DICT', 'SIMPLECAPI_DICT'],
    );
    assert.ok(accounts.every((e) => e.code === 'CSWEB_ROLE_WIDENED'));
    assert.equal(r.report.filter((e) => e.message.startsWith('CSWeb role "Standard User"')).length, 1);
    assert.equal(r.report.filter((e) => e.message.startsWith('CSWeb role "Administrator"')).length, 0);
    // User lines.
    assert.ok(report.some(([c, u]) => c === 'CSWEB_USER_EXISTS' && u === 'admin'));
    assert.ok(report.some(([c, u]) => c === 'CSWEB_USER_NAME_CASE' && u === 'Interviewer'));
    assert.ok(report.some(([c, u]) => c === 'CSWEB_USER_HASH_UNKNOWN' && u === 'md5user'));
    assert.equal(r.report.find((e) => e.code === 'CSWEB_USER_NAME_CASE')!.level, 'error');
    // Left alone: sds's own admin keeps its password, no lookalike account was made.
    assert.match(await hashOf('admin'), /^\$argon2/);
    assert.equal(await s.store.users.find('Interviewer'), undefined);
    assert.equal(await s.store.users.find('md5user'), undefined);
    const schemes = Object.fromEntries((await listUsers(s.store)).map((u) => [u.username, u.password_scheme]));
    assert.equal(schemes.ann, 'bcrypt');
    assert.equal(schemes.admin, 'argon2');
  });

  test('users log in over HTTP with the passwords CSWeb knew; the hash becomes argon2; refresh works', async () => {
    for (const [username, password] of [
      ['ann', PW.ann],
      ['Boss', PW.boss],
    ] as const) {
      const r = await token(username, password);
      const body = (await r.json()) as { access_token: string; refresh_token: string };
      assert.equal(r.status, 200, `${username}: ${JSON.stringify(body)}`);
      assert.match(await hashOf(username), /^\$argon2id\$/, `${username} was re-hashed`);
      // The refresh token issued at that login is stamped with the new hash.
      const again = await refresh(body.refresh_token);
      assert.equal(again.status, 200, `${username} refresh: ${await again.text()}`);
      // And the password still works against the argon2 hash.
      assert.equal((await token(username, password)).status, 200);
    }
    assert.ok(s.logs.some((l) => /auth login-rehashed grant=password user="ann"/.test(l)));
    assert.equal((await listUsers(s.store)).find((u) => u.username === 'ann')!.password_scheme, 'argon2');
  });

  test('two first logins at once both succeed, store one argon2 hash, and both refresh tokens work', async () => {
    const [a, b] = await Promise.all([token('pair', PW.pair), token('pair', PW.pair)]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.match(await hashOf('pair'), /^\$argon2id\$/);
    for (const r of [a, b]) {
      const { refresh_token } = (await r.json()) as { refresh_token: string };
      assert.equal((await refresh(refresh_token)).status, 200);
    }
    assert.equal(s.logs.filter((l) => /login-rehashed grant=password user="pair"/.test(l)).length, 1, 'one re-hash was stored');
  });

  test('a re-hash the store refuses does not fail the login: the bcrypt hash stays and the log says why', async () => {
    const bcryptHash = await hashOf('stuck');
    const id = (await s.store.users.find('stuck'))!.id;
    // A trigger that refuses the re-hash's write, in each store's own language.
    if (storeKindOf(s.store) === 'sqlite') {
      await storeSql(
        s.store,
        `CREATE TRIGGER refuse_rehash BEFORE UPDATE OF password_hash ON users WHEN OLD.id = ${id}
         BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`,
      );
    } else {
      await storeSql(
        s.store,
        `CREATE FUNCTION refuse_rehash() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'the disk is full'; END $$`,
      );
      await storeSql(
        s.store,
        `CREATE TRIGGER refuse_rehash BEFORE UPDATE OF password_hash ON users FOR EACH ROW WHEN (OLD.id = ${id})
         EXECUTE FUNCTION refuse_rehash()`,
      );
    }
    try {
      const r = await token('stuck', PW.stuck);
      const body = (await r.json()) as { refresh_token: string };
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(await hashOf('stuck'), bcryptHash);
      assert.ok(s.logs.some((l) => /auth login-rehash-failed grant=password user="stuck" .*the disk is full/.test(l)));
      assert.equal((await refresh(body.refresh_token)).status, 200, 'its refresh token matches the hash kept');
    } finally {
      if (storeKindOf(s.store) === 'sqlite') await storeSql(s.store, 'DROP TRIGGER refuse_rehash');
      else await storeSql(s.store, 'DROP FUNCTION refuse_rehash() CASCADE');
    }
    assert.equal((await token('stuck', PW.stuck)).status, 200);
    assert.match(await hashOf('stuck'), /^\$argon2id\$/, 'the next login re-hashes');
  });

  test('a wrong password is refused and leaves the bcrypt hash; wrong CSWeb passwords are throttled as any', async () => {
    const before = await hashOf('sup');
    const r = await token('sup', 'not-the-password');
    assert.equal(r.status, 401);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_grant');
    assert.equal(await hashOf('sup'), before);
    // The sds account "admin" was not replaced by CSWeb's: CSWeb's password does not open it.
    assert.equal((await token('admin', PW.admin)).status, 401);
    // The throttle counts bcrypt failures as it counts argon2 ones: the 5th failure is answered 429.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await token('tries', `wrong-${i}`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 429]);
    assert.match(await hashOf('tries'), /^\$2y\$/, 'no failed attempt re-hashes');
  });

  test('a malformed hash in the store is a refused login, not a crash', async () => {
    await s.store.users.insert('broken', 'Standard User', '$2y$10$tooshort');
    const r = await token('broken', 'whatever-pass');
    assert.equal(r.status, 401);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_grant');
  });

  test('running it again changes nothing, even for the accounts sds has re-hashed', async () => {
    const annHash = await hashOf('ann');
    const r = await importCswebUsers(s.store, db.conn);
    assert.deepEqual([r.added, r.updated, r.unchanged, r.skipped], [0, 0, 7, 3]);
    assert.equal(await hashOf('ann'), annHash, "sds's argon2 hash is kept while CSWeb's hash is the same");
    assert.equal((await s.store.users.listWithHashes()).filter((u) => u.username.toLowerCase() === 'ann').length, 1);
  });

  test('a password, role or detail changed in CSWeb is taken on the next run; a user gone from CSWeb is reported', async () => {
    // Logins from before the run: a new role ends the account's tokens, new details do not.
    type Tokens = { access_token: string; refresh_token: string };
    const supBefore = (await (await token('sup', PW.sup)).json()) as Tokens;
    const bossBefore = (await (await token('Boss', PW.boss)).json()) as Tokens;
    const dictionaries = (t: Tokens) => fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${t.access_token}` } });
    assert.equal((await dictionaries(supBefore)).status, 200);
    const newAnn = 'ann-new-password';
    await db.conn.query('UPDATE cspro_users SET password = ? WHERE username = ?', [await phpBcrypt(newAnn, 10), 'ann']);
    await db.conn.query('UPDATE cspro_users SET role = 2 WHERE username = ?', ['sup']);
    await db.conn.query('UPDATE cspro_users SET phone = ? WHERE username = ?', ['+1 555 0199', 'Boss']);
    await db.conn.query('DELETE FROM cspro_users WHERE username = ?', ['acct']);
    await addCswebUser(db.conn, { username: 'newbie', password: await phpBcrypt('newbie-pass-1', 8), role: 1 });

    const dry = await importCswebUsers(s.store, db.conn, { dryRun: true });
    assert.deepEqual([dry.added, dry.updated, dry.unchanged, dry.skipped], [1, 3, 3, 3]);
    assert.match(await hashOf('ann'), /^\$argon2/, 'the dry run wrote nothing');

    const r = await importCswebUsers(s.store, db.conn);
    assert.deepEqual([r.added, r.updated, r.unchanged, r.skipped], [1, 3, 3, 3]);
    assert.deepEqual(outcome(r, 'ann')!.changed, ['password']);
    assert.deepEqual(outcome(r, 'sup')!.changed, ['role', 'details']);
    assert.deepEqual(outcome(r, 'Boss')!.changed, ['details']);
    assert.equal((await s.store.users.find('sup'))!.role, 'Administrator');
    assert.equal((await s.store.users.cswebRecord((await s.store.users.find('Boss'))!.id))!.phone, '+1 555 0199');
    assert.equal((await s.store.users.find('Boss'))!.profile.phone, '+1 555 0199', 'the account takes the phone changed in CSWeb');
    assert.ok(r.report.some((e) => e.code === 'CSWEB_USER_GONE' && e.user === 'acct' && e.level === 'warn'));
    assert.ok(await s.store.users.find('acct'), 'an account gone from CSWeb is left in sds');

    assert.equal((await token('ann', PW.ann)).status, 401, 'the old password no longer opens it');
    assert.equal((await token('ann', newAnn)).status, 200, 'the password set in CSWeb does');
    assert.equal((await token('newbie', 'newbie-pass-1')).status, 200);

    // sup was Standard and is now Administrator: no token of the Standard login carries over
    // (docs/http-api.md#what-ends-a-token); its refresh token is refused by the token version alone.
    assert.equal((await dictionaries(supBefore)).status, 401);
    const supRefresh = await refresh(supBefore.refresh_token);
    assert.equal(supRefresh.status, 401);
    assert.match(((await supRefresh.json()) as { error_description: string }).error_description, /role changed/);
    assert.equal((await dictionaries(bossBefore)).status, 200, 'new details leave the tokens alone');
    assert.equal((await refresh(bossBefore.refresh_token)).status, 200);
  });

  test('a database without the account tables is refused, naming the table', async () => {
    await db.conn.query('DROP TABLE cspro_role_dictionary_permissions');
    await assert.rejects(importCswebUsers(s.store, db.conn), (err: Error & { code?: string; details?: { table?: string } }) => {
      assert.equal(err.code, 'CSWEB_USERS_UNREADABLE');
      assert.equal(err.details?.table, 'cspro_role_dictionary_permissions');
      assert.match(err.message, /cspro_role_dictionary_permissions/);
      return true;
    });
  });
});
