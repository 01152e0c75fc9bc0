import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';

describe('users and files', { concurrency: true }, () => {
  test('users add (password on stdin), list without hash, duplicate, bad role, passwd, remove twice', async () => {
    const home = await tempHome();
    try {
      const add = await sds(home.root, ['users', 'add', 'alice', '--role', 'API', '--json'], { stdin: 'correct horse battery\n' });
      assert.equal(add.code, 0, show(add));
      const u = add.json();
      assert.equal(u.username, 'alice');
      assert.equal(u.role, 'API');
      assert.equal(u.disabled, false);

      const list = await sds(home.root, ['users', 'list', '--json']);
      assert.equal(list.code, 0, show(list));
      const users = list.json();
      assert.equal(users.length, 1);
      assert.deepEqual(Object.keys(users[0]).sort(), [
        'created_at',
        'disabled',
        'email',
        'failed_logins',
        'first_name',
        'id',
        'last_login_at',
        'last_name',
        'password_scheme',
        'phone',
        'role',
        'updated_at',
        'username',
      ]);
      assert.equal(users[0].password_scheme, 'argon2');
      assert.doesNotMatch(list.stdout, /\$argon2|\$2[aby]\$|password_hash/i, 'no password hash in the output');
      const human = await sds(home.root, ['users', 'list']);
      assert.match(human.stdout, /alice/);
      assert.doesNotMatch(human.stdout, /argon2/);

      const dup = await sds(home.root, ['users', 'add', 'alice', '--role', 'API', '--json'], { stdin: 'another password\n' });
      assert.equal(dup.code, 4, show(dup));
      assert.equal(dup.json().error, 'CONFLICT');

      const role = await sds(home.root, ['users', 'add', 'bob', '--role', 'admin', '--json'], { stdin: 'long enough pw\n' });
      assert.equal(role.code, 2, show(role));
      assert.equal(role.json().error, 'USAGE');
      assert.match(role.json().message, /Administrator/);

      const short = await sds(home.root, ['users', 'add', 'carol', '--role', 'Standard User', '--password-stdin', '--json'], {
        stdin: 'short\n',
      });
      assert.equal(short.code, 2, show(short));
      const empty = await sds(home.root, ['users', 'add', 'dave', '--role', 'Standard User', '--json']);
      assert.equal(empty.code, 2, `no password on stdin: ${show(empty)}`);
      assert.deepEqual(
        (await sds(home.root, ['users', 'list', '--json'])).json().map((x: { username: string }) => x.username),
        ['alice'],
      );

      const pw = await sds(home.root, ['users', 'passwd', 'alice', '--password-stdin', '--json'], { stdin: 'a new secret pw\n' });
      assert.equal(pw.code, 0, show(pw));
      assert.equal(pw.json().username, 'alice');
      const pwNf = await sds(home.root, ['users', 'passwd', 'nobody', '--json'], { stdin: 'a new secret pw\n' });
      assert.equal(pwNf.code, 3, show(pwNf));

      const rm = await sds(home.root, ['users', 'remove', 'alice', '--json']);
      assert.equal(rm.code, 0, show(rm));
      assert.equal(rm.json().username, 'alice');
      const rm2 = await sds(home.root, ['users', 'remove', 'alice', '--json']);
      assert.equal(rm2.code, 3, show(rm2));
      assert.equal(rm2.json().error, 'NOT_FOUND');
      const rm3 = await sds(home.root, ['users', 'remove', 'alice']);
      assert.equal(rm3.code, 3);
      assert.match(rm3.stderr, /^sds: NOT_FOUND: /);
      assert.deepEqual((await sds(home.root, ['users', 'list', '--json'])).json(), []);
    } finally {
      await home.cleanup();
    }
  });

  test('files put/info/list/get -o/get to stdout/rm', async () => {
    const home = await tempHome();
    try {
      // A JPEG signature first: the content type is the extension's only when the bytes carry it.
      const content = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(200_000), Buffer.from([0, 255, 10, 13, 0])]);
      const src = join(home.root, 'photo.jpg');
      writeFileSync(src, content);

      const put = await sds(home.root, ['files', 'put', src, '--json']);
      assert.equal(put.code, 0, show(put));
      const info = put.json();
      assert.equal(info.name, 'photo.jpg');
      assert.equal(info.size, content.length);
      assert.equal(info.content_type, 'image/jpeg');
      assert.match(info.sha256, /^[0-9a-f]{64}$/);

      const put2 = await sds(home.root, ['files', 'put', src, '--name', 'apps/census.pen', '--json']);
      assert.equal(put2.code, 0, show(put2));
      assert.equal(put2.json().name, 'apps/census.pen');
      // In the media area (a folder named apps there), not the apps area: read back below.
      assert.equal((await sds(home.root, ['files', 'info', 'apps/census.pen', '--json'])).code, 0);

      const i = await sds(home.root, ['files', 'info', 'photo.jpg', '--json']);
      assert.equal(i.code, 0, show(i));
      assert.deepEqual(i.json(), info);

      const list = await sds(home.root, ['files', 'list', '--json']);
      assert.equal(list.code, 0, show(list));
      assert.deepEqual(
        list
          .json()
          .map((f: { name: string }) => f.name)
          .sort(),
        ['apps/census.pen', 'photo.jpg'],
      );

      const out = join(home.root, 'out.bin');
      const get = await sds(home.root, ['files', 'get', 'photo.jpg', '-o', out, '--json']);
      assert.equal(get.code, 0, show(get));
      assert.ok(readFileSync(out).equals(content), 'files get -o writes the same bytes');
      assert.equal(get.json().size, content.length);

      const cat = await sds(home.root, ['files', 'get', 'apps/census.pen']);
      assert.equal(cat.code, 0, show(cat));
      assert.ok(cat.raw.equals(content), `files get to stdout is byte-exact (${cat.raw.length} vs ${content.length} bytes)`);

      const nf = await sds(home.root, ['files', 'get', 'nope.jpg', '--json']);
      assert.equal(nf.code, 3, show(nf));
      assert.equal(nf.json().error, 'NOT_FOUND');

      const rm = await sds(home.root, ['files', 'rm', 'photo.jpg', '--json']);
      assert.equal(rm.code, 0, show(rm));
      assert.ok(!existsSync(join(home.media, 'photo.jpg')));
      const rm2 = await sds(home.root, ['files', 'rm', 'photo.jpg', '--json']);
      assert.equal(rm2.code, 3, show(rm2));
      assert.deepEqual(
        (await sds(home.root, ['files', 'list', '--json'])).json().map((f: { name: string }) => f.name),
        ['apps/census.pen'],
      );
    } finally {
      await home.cleanup();
    }
  });

  test('files put with a name escaping the media area exits 2 (PATH_INVALID) and writes nothing outside', async () => {
    const home = await tempHome();
    try {
      const src = join(home.root, 'x');
      writeFileSync(src, 'escape attempt');
      const filesDir = dirname(home.media);
      const beforeRoot = readdirSync(home.root).sort();
      for (const name of ['../escape', '../../escape', '/tmp/escape', 'a/../../escape', '.hidden', 'a\\..\\escape']) {
        const r = await sds(home.root, ['files', 'put', src, '--name', name, '--json']);
        assert.equal(r.code, 2, `${name}: ${show(r)}`);
        assert.equal(r.json().error, 'PATH_INVALID', name);
      }
      const t = await sds(home.root, ['files', 'put', src, '--name', '../escape']);
      assert.equal(t.code, 2);
      assert.match(t.stderr, /^sds: PATH_INVALID: /);
      assert.ok(!existsSync(join(filesDir, 'escape')), 'nothing written next to the media area');
      assert.ok(!existsSync(join(home.root, 'escape')), 'nothing written in the home');
      const afterRoot = readdirSync(home.root).filter((n) => !beforeRoot.includes(n));
      assert.deepEqual(
        afterRoot.filter((n) => !['sds.db', 'sds.db-wal', 'sds.db-shm', 'files', 'logs', 'locks', 'targets'].includes(n)),
        [],
      );
      assert.deepEqual(readdirSync(filesDir), ['media']);
      assert.deepEqual(readdirSync(home.media), [], 'nothing written in the media area either');
      assert.deepEqual((await sds(home.root, ['files', 'list', '--json'])).json(), []);
      const info = await sds(home.root, ['files', 'info', '../sds.db', '--json']);
      assert.equal(info.code, 2, show(info));
      assert.equal(info.json().error, 'PATH_INVALID');
      const get = await sds(home.root, ['files', 'get', '../../sds.db']);
      assert.equal(get.code, 2, show(get));
      assert.equal(get.stdout, '');
    } finally {
      await home.cleanup();
    }
  });
});
