import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash } from 'bcryptjs';
import { hashPassword, isBcryptHash, passwordScheme, verifyPassword } from '../../../src/core/auth/passwords.js';

test('bcrypt hashes with $2y$ (PHP), $2b$ and $2a$ verify; a wrong password does not', async () => {
  const b = await hash('field-pass-1', 4);
  for (const prefix of ['$2y$', '$2b$', '$2a$']) {
    const h = b.replace(/^\$2b\$/, prefix);
    assert.equal(passwordScheme(h), 'bcrypt', prefix);
    assert.equal(await verifyPassword(h, 'field-pass-1'), true, prefix);
    assert.equal(await verifyPassword(h, 'field-pass-2'), false, prefix);
  }
});

test('argon2 hashes keep verifying and are told apart from bcrypt', async () => {
  const a = await hashPassword('own-password');
  assert.equal(passwordScheme(a), 'argon2');
  assert.equal(isBcryptHash(a), false);
  assert.equal(await verifyPassword(a, 'own-password'), true);
});

test('a malformed hash is a mismatch, never a crash', async () => {
  const good = (await hash('x-password', 4)).replace(/^\$2b\$/, '$2y$');
  const bad = [
    '',
    '$2y$',
    good.slice(0, 40), // cut short
    good.replace('$04$', '$03$'), // cost below 4
    good.replace('$04$', '$32$'), // cost above 31
    good.replace(/^\$2y\$/, '$2x$'), // an unknown revision
    `${good}!`, // a character outside bcrypt's alphabet
    'md5:5f4dcc3b5aa765d61d8327deb882cf99',
    '$argon2id$v=19$m=19456,t=2,p=1$broken',
  ];
  for (const h of bad) {
    assert.equal(isBcryptHash(h) && h !== good, false, `not bcrypt: ${h}`);
    assert.equal(await verifyPassword(h, 'x-password'), false, `mismatch: ${JSON.stringify(h)}`);
  }
  assert.equal(passwordScheme('md5:5f4dcc3b5aa765d61d8327deb882cf99'), 'unknown');
});

test('cost 4 to 31 is bcrypt; the cost is two digits as PHP writes it', () => {
  const tail = 'a'.repeat(53);
  assert.equal(isBcryptHash(`$2y$04$${tail}`), true);
  assert.equal(isBcryptHash(`$2y$31$${tail}`), true);
  assert.equal(isBcryptHash(`$2y$4$${tail}`), false);
  assert.equal(isBcryptHash(`$2y$10$${tail.slice(1)}`), false);
});
