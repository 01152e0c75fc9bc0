import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash } from 'bcryptjs';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { openStore } from '../../../src/store/open-store.js';

test('users list tells an account that still has a CSWeb bcrypt hash from one with its own argon2 hash', async () => {
  const home = await tempHome();
  try {
    assert.equal((await sds(home.root, ['users', 'add', 'own', '--role', 'API'], { stdin: 'own-password-1\n' })).code, 0);
    // As an import from CSWeb leaves it: the PHP-written hash, copied unchanged.
    const store = await openStore(home);
    await store.users.insert('fromcsweb', 'Standard User', (await hash('csweb-password', 4)).replace(/^\$2b\$/, '$2y$'));
    await store.close();

    const json = await sds(home.root, ['users', 'list', '--json']);
    assert.equal(json.code, 0, show(json));
    const schemes = Object.fromEntries(
      json.json().map((u: { username: string; password_scheme: string }) => [u.username, u.password_scheme]),
    );
    assert.deepEqual(schemes, { fromcsweb: 'bcrypt', own: 'argon2' });
    assert.doesNotMatch(json.stdout, /\$2y\$|\$argon2/, 'no hash in the output');

    const human = await sds(home.root, ['users', 'list', '--plain']);
    assert.equal(human.code, 0, show(human));
    const [header, ...rows] = human.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const col = header!.indexOf('password');
    assert.ok(col >= 0, human.stdout);
    assert.deepEqual(
      rows.map((r) => [r[0], r[col]]),
      [
        ['fromcsweb', 'CSWeb'],
        ['own', 'sds'],
      ],
    );
  } finally {
    await home.cleanup();
  }
});
