/** Which sync API version a User-Agent gets, and the other pure pieces of the version split (docs/sync.md#client-versions). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csproVersionOf, isCsproClient, syncApiVersion } from '../../../src/sync/client-version.js';
import { wantsFileMd5 } from '../../../src/sync/headers.js';
import { AppError } from '../../../src/shared/errors.js';
import { wrappedTokenReply } from '../../../src/core/auth/cspro-user.js';

test('CSPro 8.1 and later get version 3; 8.0, older CSPro and other clients get 2', () => {
  const cases: [string | undefined, 2 | 3][] = [
    ['CSPro sync client/8.1', 3],
    // What CSPro 8.1.1 sends: its detailed version, a prerelease tag before the bitness (docs/sync.md#cspro-81-answers).
    ['CSPro sync client/8.1.1 (64-bit)', 3],
    ['CSPro sync client/8.1.1 (beta) (32-bit)', 3],
    ['CSPro sync client/8.0.1 (64-bit)', 2],
    ['CSPro sync client/8.1.0.1234', 3],
    ['CSPro sync client/8.2.0', 3],
    ['CSPro sync client/8.10', 3],
    ['CSPro sync client/9.0', 3],
    ['CSPro sync client/10.0.1', 3],
    ['cspro SYNC client/8.1.0', 3],
    ['  CSPro sync client/8.1.0  ', 3],
    ['CSPro sync client/8.0.1', 2],
    ['CSPro sync client/8.0', 2],
    ['CSPro sync client/7.7.3', 2],
    ['CSPro sync client/8', 2],
    ['CSPro sync client/', 2],
    ['CSPro sync client/beta', 2],
    ['Mozilla/5.0 CSPro sync client/8.1', 2],
    ['curl/8.5.0', 2],
    ['', 2],
    [undefined, 2],
  ];
  for (const [agent, version] of cases) assert.equal(syncApiVersion(agent), version, String(agent));
});

test('the version is the first \\d+\\.?\\d+ after the slash, as CSPro reads it', () => {
  assert.deepEqual(csproVersionOf('CSPro sync client/8.1.0.1234'), { major: 8, minor: 1 });
  assert.deepEqual(csproVersionOf('CSPro sync client/v8.0.1 (Android)'), { major: 8, minor: 0 });
  assert.deepEqual(csproVersionOf('CSPro sync client/81'), { major: 81, minor: 0 });
  assert.equal(csproVersionOf('CSPro sync client/8'), undefined);
  assert.equal(csproVersionOf('other/8.1'), undefined);
});

test('any CSPro client is told apart from other clients (its errors carry code)', () => {
  assert.equal(isCsproClient('CSPro sync client/8.0.1'), true);
  assert.equal(isCsproClient('CSPro sync client/8.1.0'), true);
  assert.equal(isCsproClient('curl/8.5.0'), false);
  assert.equal(isCsproClient(undefined), false);
});

test('x-csw-get-file-md5: only false turns the md5 off; a value that is not a boolean is refused', () => {
  const get = (v: string | undefined) => (name: string) => (name === 'x-csw-get-file-md5' ? v : undefined);
  assert.equal(wantsFileMd5(get(undefined)), true);
  assert.equal(wantsFileMd5(get('')), true);
  assert.equal(wantsFileMd5(get('true')), true);
  assert.equal(wantsFileMd5(get(' false ')), false);
  assert.throws(
    () => wantsFileMd5(get('maybe')),
    (e: unknown) => e instanceof AppError && e.code === 'SYNC_HEADER_INVALID',
  );
});

test("the wrapped token reply: the tokens under credentials, the account's UUID and CSPro role name under user", () => {
  const tokens = { access_token: 'a', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r' } as const;
  const uuid = '3f2c9a4e-8b1d-4c6e-9f0a-2d7b5e1c4a93';
  assert.deepEqual(wrappedTokenReply(tokens, { uuid, role: 'Standard User' }), {
    credentials: tokens,
    user: { id: uuid, roleName: 'Standard User' },
  });
  assert.equal(
    wrappedTokenReply(tokens, { uuid, role: 'Field supervisor' }).user.roleName,
    'Field supervisor',
    'a custom role by its name',
  );
});
