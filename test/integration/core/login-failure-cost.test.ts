/**
 * A failed login costs the same password checks whatever the account (docs/migrating-from-csweb.md#passwords):
 * unknown, sds's own argon2 hash, or a bcrypt hash kept from CSWeb, so the time of a 401 tells
 * neither which accounts exist nor which still have their CSWeb password. The checks are counted
 * by scheme through the verifier `checkPassword` takes, each one the real verification, on a
 * real store; no clock is read.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hash } from 'bcryptjs';
import { checkPassword, type PasswordVerifier } from '../../../src/core/auth/password-login.js';
import { hashPassword, passwordScheme, verifyPassword } from '../../../src/core/auth/passwords.js';
import type { Store } from '../../../src/core/home/index.js';
import { tempStore } from '../../helpers/temp-home.js';

let t: Awaited<ReturnType<typeof tempStore>>;
let store: Store;

/** What one login attempt checked: the scheme and bcrypt cost of each hash, in order, and how it ended. */
async function attempt(username: string, password: string): Promise<{ checks: string[]; ok: boolean }> {
  const checks: string[] = [];
  const counting: PasswordVerifier = (h, p) => {
    const scheme = passwordScheme(h);
    checks.push(scheme === 'bcrypt' ? `bcrypt-${h.slice(4, 6)}` : scheme);
    return verifyPassword(h, p);
  };
  try {
    await checkPassword(store, username, password, () => {}, counting);
    return { checks, ok: true };
  } catch {
    return { checks, ok: false };
  }
}

const sorted = (a: string[]) => [...a].sort();

before(async () => {
  t = await tempStore();
  store = t.store;
  await store.users.insert('own', 'Standard User', await hashPassword('own-password'));
  await store.users.insert('broken', 'Standard User', 'not-a-hash');
});
after(() => t.cleanup());

test('without CSWeb hashes: every failure is one argon2 check; a success costs no extra check', async () => {
  const unknown = await attempt('nobody', 'whatever-1');
  const wrong = await attempt('own', 'whatever-1');
  const broken = await attempt('broken', 'whatever-1');
  assert.deepEqual(unknown, { checks: ['argon2'], ok: false });
  assert.deepEqual(wrong, { checks: ['argon2'], ok: false });
  // A malformed hash fails at once, so its account pays the throw-away argon2 check as well.
  assert.deepEqual(broken, { checks: ['unknown', 'argon2'], ok: false });
  assert.deepEqual(await attempt('own', 'own-password'), { checks: ['argon2'], ok: true });
});

test('with an account imported from CSWeb: every failure is one argon2 and one bcrypt check of the same cost', async () => {
  // PHP's password_hash at its default cost 10, as CSWeb stores it.
  await store.users.insert('ann', 'Standard User', (await hash('csweb-pass', 10)).replace(/^\$2b\$/, '$2y$'));
  const results = {
    unknown: await attempt('nobody', 'whatever-2'),
    argon2Account: await attempt('own', 'whatever-2'),
    bcryptAccount: await attempt('ann', 'whatever-2'),
  };
  for (const [who, r] of Object.entries(results)) {
    assert.equal(r.ok, false, who);
    assert.deepEqual(sorted(r.checks), ['argon2', 'bcrypt-10'], who);
  }
  // The right CSWeb password logs in with one check, and the account is re-hashed with argon2.
  assert.deepEqual(await attempt('ann', 'csweb-pass'), { checks: ['bcrypt-10'], ok: true });
  assert.equal(passwordScheme((await store.users.find('ann'))!.passwordHash), 'argon2');
});

test('once the last CSWeb hash is re-hashed, failures are back to one argon2 check', async () => {
  assert.equal(await store.users.anyBcryptHash(), undefined);
  assert.deepEqual(await attempt('nobody', 'whatever-3'), { checks: ['argon2'], ok: false });
  assert.deepEqual(await attempt('own', 'whatever-3'), { checks: ['argon2'], ok: false });
});
