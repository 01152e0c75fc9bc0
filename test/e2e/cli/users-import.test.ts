/**
 * `sds users import`, `show`, `update` and the profile flags of `add` (docs/supervision.md#accounts),
 * through the real CLI on the run's store: a CSV in CSWeb's column order with and without a
 * header, every bad line reported and nothing written, `--update`, the row limit, and that the
 * imported passwords are the ones of the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempHome, withStore, writeHomeConfig, type TempHome } from '../../helpers/temp-home.js';
import { verifyPassword } from '../../../src/core/auth/passwords.js';

const HEADER = 'username,first name,last name,role name,password,email,phone';

function csv(home: TempHome, name: string, lines: string[]): string {
  const file = join(home.root, name);
  writeFileSync(file, lines.join('\r\n') + '\r\n');
  return file;
}

interface Listed {
  username: string;
  role: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
}

async function list(home: TempHome): Promise<Listed[]> {
  const r = await sds(home.root, ['users', 'list', '--json']);
  assert.equal(r.code, 0, show(r));
  return r.json() as Listed[];
}

describe('sds users import', { concurrency: true }, () => {
  test('imports a CSWeb CSV with --header: accounts, roles, names, email, phone and passwords as in the file', async () => {
    const home = await tempHome();
    try {
      const file = csv(home, 'team.csv', [
        HEADER,
        'amina01,Amina,Diallo,Standard User,secret-pass-1,amina@example.org,+221 77 000 00 01',
        "joao02,João,D'Souza-Lima,Administrator,secret-pass-2",
        'api00003,Data,Feed,API,secret-pass-3,feed@example.org,',
      ]);
      const r = await sds(home.root, ['users', 'import', file, '--header', '--json']);
      assert.equal(r.code, 0, show(r));
      assert.deepEqual(r.json(), {
        added: 3,
        updated: 0,
        accounts: [
          { line: 2, username: 'amina01', role: 'Standard User', action: 'add' },
          { line: 3, username: 'joao02', role: 'Administrator', action: 'add' },
          { line: 4, username: 'api00003', role: 'API', action: 'add' },
        ],
      });
      const users = await list(home);
      assert.deepEqual(
        users.map((u) => [u.username, u.role, u.first_name, u.last_name, u.email, u.phone]),
        [
          ['amina01', 'Standard User', 'Amina', 'Diallo', 'amina@example.org', '+221 77 000 00 01'],
          ['api00003', 'API', 'Data', 'Feed', 'feed@example.org', null],
          ['joao02', 'Administrator', 'João', "D'Souza-Lima", null, null],
        ],
      );
      await withStore(home, async (store) => {
        const amina = await store.users.find('amina01');
        assert.ok(amina && (await verifyPassword(amina.passwordHash, 'secret-pass-1')), 'the password of the file logs in');
        assert.equal(await verifyPassword(amina.passwordHash, 'secret-pass-2'), false);
      });
      const human = await sds(home.root, ['users', 'show', 'joao02']);
      assert.equal(human.code, 0, show(human));
      assert.match(human.stdout, /first_name\s+João/);
      assert.match(human.stdout, /last_name\s+D'Souza-Lima/);
    } finally {
      await home.cleanup();
    }
  });

  test('one bad line imports nothing; every bad line is named with its number; a header read as an account is pointed at', async () => {
    const home = await tempHome();
    try {
      const file = csv(home, 'bad.csv', [
        HEADER,
        'good0001,Ann,Lee,Standard,long-enough-1',
        'ab,Ann,Lee,Standard,long-enough-2',
        'good0003,Ann,Lee,Supervisor,short',
        'good0001,Ann,Lee,API,long-enough-4,not-an-email',
      ]);
      const r = await sds(home.root, ['users', 'import', file, '--json']);
      assert.equal(r.code, 2, show(r));
      const body = r.json();
      assert.equal(body.error, 'USERS_IMPORT_INVALID');
      assert.deepEqual(
        body.details.errors.map((e: { line: number; field?: string }) => `${e.line} ${e.field}`),
        ['1 role name', '1 email', '3 username', '4 role name', '4 password', '5 email', '5 username'],
      );
      assert.equal(body.details.header_suspected, true);
      assert.match(body.message, /no account was imported/);
      assert.match(body.message, /--header/, 'the CLI names the flag');
      assert.deepEqual(await list(home), [], 'nothing was written');

      const human = await sds(home.root, ['users', 'import', file, '--header']);
      assert.equal(human.code, 2, show(human));
      assert.match(human.stderr, /^sds: USERS_IMPORT_INVALID: .*bad\.csv has 5 problems; no account was imported:/);
      assert.match(human.stderr, /\n {2}line 3 \(username\): user name "ab" is not valid/);
      assert.match(human.stderr, /\n {2}line 5 \(username\): user name good0001 is also on line 2/);
      assert.deepEqual(await list(home), []);

      // Saved as Latin-1 rather than UTF-8, and a file of a header alone: refused, nothing written.
      const latin1 = join(home.root, 'latin1.csv');
      writeFileSync(latin1, Buffer.from('jose0001,Jos\xe9,Lee,Standard,long-enough-1\n', 'latin1'));
      const notUtf8 = await sds(home.root, ['users', 'import', latin1, '--json']);
      assert.equal(notUtf8.code, 2, show(notUtf8));
      assert.deepEqual(notUtf8.json().details.errors, [{ line: 1, message: 'the file is not UTF-8 text; save it as CSV UTF-8' }]);
      const empty = await sds(home.root, ['users', 'import', csv(home, 'empty.csv', [HEADER]), '--header', '--json']);
      assert.equal(empty.code, 2, show(empty));
      assert.equal(empty.json().details.errors[0].message, 'the file holds no account');
      assert.deepEqual(await list(home), []);
    } finally {
      await home.cleanup();
    }
  });

  test('an existing account is refused without --update and updated with it: role, password, names, email, phone', async () => {
    const home = await tempHome();
    try {
      const add = await sds(
        home.root,
        ['users', 'add', 'amina01', '--role', 'Standard', '--first-name', 'Amina', '--email', 'old@example.org', '--json'],
        { stdin: 'first-password\n' },
      );
      assert.equal(add.code, 0, show(add));
      assert.equal(add.json().first_name, 'Amina');
      assert.equal(add.json().last_name, null);
      const file = csv(home, 'again.csv', ['amina01,Amina,Diallo,API,second-password,,+221 1', 'newone01,New,One,Standard,third-password']);

      const refused = await sds(home.root, ['users', 'import', file]);
      assert.equal(refused.code, 2, show(refused));
      assert.match(refused.stderr, /line 1 \(username\): an account amina01 exists already/);
      assert.match(refused.stderr, /--update/);
      assert.deepEqual(
        (await list(home)).map((u) => u.username),
        ['amina01'],
        'the new account of the same file was not added either',
      );

      const updated = await sds(home.root, ['users', 'import', file, '--update', '--json']);
      assert.equal(updated.code, 0, show(updated));
      assert.deepEqual([updated.json().added, updated.json().updated], [1, 1]);
      const amina = (await list(home)).find((u) => u.username === 'amina01')!;
      assert.deepEqual(
        [amina.role, amina.first_name, amina.last_name, amina.email, amina.phone],
        ['API', 'Amina', 'Diallo', null, '+221 1'],
      );
      await withStore(home, async (store) => {
        const u = await store.users.find('amina01');
        assert.ok(u && (await verifyPassword(u.passwordHash, 'second-password')));
      });
    } finally {
      await home.cleanup();
    }
  });

  test('users update sets, clears and checks the fields; show of an unknown account is exit 3', async () => {
    const home = await tempHome();
    try {
      assert.equal((await sds(home.root, ['users', 'add', 'ops', '--role', 'API'], { stdin: 'a-long-password\n' })).code, 0);
      const set = await sds(home.root, ['users', 'update', 'ops', '--first-name', 'Olu', '--last-name', 'Ade', '--phone', '123', '--json']);
      assert.equal(set.code, 0, show(set));
      assert.deepEqual([set.json().first_name, set.json().last_name, set.json().phone], ['Olu', 'Ade', '123']);
      const cleared = await sds(home.root, ['users', 'update', 'ops', '--phone', '', '--json']);
      assert.equal(cleared.code, 0, show(cleared));
      assert.deepEqual([cleared.json().first_name, cleared.json().phone], ['Olu', null]);
      const bad = await sds(home.root, ['users', 'update', 'ops', '--email', 'nope', '--json']);
      assert.equal(bad.code, 2, show(bad));
      assert.equal(bad.json().details.field, 'email');
      const nothing = await sds(home.root, ['users', 'update', 'ops', '--json']);
      assert.equal(nothing.code, 2, show(nothing));
      const missing = await sds(home.root, ['users', 'show', 'nobody', '--json']);
      assert.equal(missing.code, 3, show(missing));
      assert.equal((await sds(home.root, ['users', 'update', 'nobody', '--phone', '1'])).code, 3);
    } finally {
      await home.cleanup();
    }
  });

  test('a file over limits.users_import_rows or limits.users_import_bytes is refused whole (PAYLOAD_TOO_LARGE)', async () => {
    const home = await tempHome();
    try {
      writeHomeConfig(home, { limits: { users_import_rows: 2, users_import_bytes: 1024 } });
      const three = csv(home, 'three.csv', [
        'user0001,A,B,API,long-enough-1',
        'user0002,A,B,API,long-enough-2',
        'user0003,A,B,API,long-enough-3',
      ]);
      const rows = await sds(home.root, ['users', 'import', three, '--json']);
      assert.equal(rows.code, 2, show(rows));
      assert.equal(rows.json().error, 'PAYLOAD_TOO_LARGE');
      assert.match(rows.json().message, /3 rows, more than the limit of 2 \(limits\.users_import_rows\)/);
      const big = csv(home, 'big.csv', ['user0001,A,B,API,long-enough-1,' + 'a'.repeat(1100) + '@example.org']);
      const bytes = await sds(home.root, ['users', 'import', big, '--json']);
      assert.equal(bytes.code, 2, show(bytes));
      assert.equal(bytes.json().error, 'PAYLOAD_TOO_LARGE');
      assert.deepEqual(await list(home), []);
      const two = csv(home, 'two.csv', ['user0001,A,B,API,long-enough-1', 'user0002,A,B,API,long-enough-2']);
      assert.equal((await sds(home.root, ['users', 'import', two])).code, 0);
    } finally {
      await home.cleanup();
    }
  });
});
