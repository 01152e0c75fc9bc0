import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { addUser, changePassword, listUsers, removeUser } from '../../../src/core/auth/users.js';
import { verifyPassword } from '../../../src/core/auth/passwords.js';
import { fileInfo, listFiles, openFile, putFile, removeFile } from '../../../src/core/files/files.js';
import { AppError } from '../../../src/shared/errors.js';
import { tempStore } from '../../helpers/temp-home.js';
import { storedBytes, storedNames } from '../../helpers/stored-files.js';

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

test('users: add with an argon2id hash, refuse duplicates and bad input, change password, remove', async () => {
  const { store, cleanup } = await tempStore();
  try {
    const u = await addUser(store, 'alice', 'API', 'correct horse');
    assert.equal(u.role, 'API');
    const row = (await store.users.find('alice'))!;
    assert.match(row.passwordHash, /^\$argon2id\$/);
    assert.equal(await verifyPassword(row.passwordHash, 'correct horse'), true);
    assert.equal(await verifyPassword(row.passwordHash, 'wrong'), false);
    await assert.rejects(addUser(store, 'alice', 'API', 'another one'), code('CONFLICT'));
    await assert.rejects(addUser(store, 'bob', 'admin', 'long enough'), code('USAGE'));
    await assert.rejects(addUser(store, 'bob', 'Standard User', 'short'), code('USAGE'));
    await assert.rejects(addUser(store, '../bob', 'Standard User', 'long enough'), code('USAGE'));
    await changePassword(store, 'alice', 'battery staple');
    assert.equal(await verifyPassword((await store.users.find('alice'))!.passwordHash, 'battery staple'), true);
    assert.deepEqual(
      (await listUsers(store)).map((x) => x.username),
      ['alice'],
    );
    await removeUser(store, 'alice');
    await assert.rejects(removeUser(store, 'alice'), code('NOT_FOUND'));
  } finally {
    await cleanup();
  }
});

test('files: put, info, get, list and rm in the media area; traversal refused', async () => {
  const { store, cleanup } = await tempStore();
  try {
    const info = await putFile(store, 'photos/a.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    assert.equal(info.size, 11);
    assert.equal(info.content_type, 'text/plain');
    assert.equal(info.sha256, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
    assert.equal((await storedBytes(store, 'media', 'photos/a.txt'))?.toString(), 'hello world');
    assert.deepEqual((await fileInfo(store, 'photos/a.txt')).size, 11);
    const { snapshot } = await openFile(store, 'photos/a.txt');
    const chunks: Buffer[] = [];
    for await (const c of snapshot.stream()) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'hello world');
    await putFile(store, 'photos/a.txt', Readable.from([Buffer.from('v2')]));
    assert.equal((await fileInfo(store, 'photos/a.txt')).size, 2);
    assert.deepEqual(
      (await listFiles(store)).map((f) => f.name),
      ['photos/a.txt'],
    );
    await assert.rejects(putFile(store, '../escape.txt', Readable.from([Buffer.from('x')])), code('PATH_INVALID'));
    assert.deepEqual(await storedNames(store, 'media'), ['photos'], 'nothing outside the media area');
    await assert.rejects(
      fileInfo(store, 'missing.jpg'),
      (e: unknown) => e instanceof AppError && e.code === 'NOT_FOUND' && /missing\.jpg/.test(e.message),
    );
    await removeFile(store, 'photos/a.txt');
    assert.equal(await storedBytes(store, 'media', 'photos/a.txt'), undefined);
    assert.deepEqual(await listFiles(store), []);
  } finally {
    await cleanup();
  }
});
