import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { TokenResponse } from '../../../src/http/schemas/token.js';
import { changePassword, removeUser } from '../../../src/core/auth/users.js';
import { accessTokenKey } from '../../../src/core/auth/signing-key.js';
import { startTestServer, USERS, type TestServer } from '../../helpers/http-server.js';
import { storeSql } from '../../helpers/temp-home.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

const form = (p: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(p),
});
const jsonBody = (p: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(p),
});
const token = (init: RequestInit) => fetch(`${s.base}/api/token`, init);

async function expectOAuthError(r: Response, status: number, error: string, description?: RegExp): Promise<void> {
  const body = (await r.json()) as { error: string; error_description: string };
  assert.equal(r.status, status, JSON.stringify(body));
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  OAuthErrorBody.parse(body);
  assert.equal(body.error, error);
  if (description) assert.match(body.error_description, description);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
}

const A = USERS.api;

test('password grant as a form: the 4-field token response, a JWT with sub/role/jti/iat/exp, no-store', async () => {
  const r = await token(form({ grant_type: 'password', username: A.username, password: A.password }));
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('cache-control'), 'no-store');
  assert.equal(r.headers.get('pragma'), 'no-cache');
  const body = TokenResponse.parse(await r.json());
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_in, 3600);
  assert.deepEqual(decodeProtectedHeader(body.access_token), { alg: 'HS256', typ: 'JWT' });
  const claims = decodeJwt(body.access_token);
  assert.equal(claims.sub, (await s.store.users.find(A.username))!.uuid, "sub is the account's UUID, never its name");
  assert.match(String(claims.sub), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(claims.role, 'API');
  assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
  assert.equal(claims.iat, Date.UTC(2025, 0, 15, 9, 0, 0) / 1000, 'iat comes from the injected clock');
  assert.equal(claims.exp! - claims.iat!, 3600);
  assert.match(body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
  // Stored hashed: the token itself is nowhere in the store.
  const hash = createHash('sha256').update(body.refresh_token).digest('hex');
  const rows = (await storeSql(s.store, 'SELECT token_hash FROM refresh_tokens')) as { token_hash: string }[];
  assert.ok(rows.some((x) => x.token_hash === hash));
  assert.ok(!rows.some((x) => x.token_hash === body.refresh_token));
  // The token works.
  const list = await fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${body.access_token}` } });
  assert.equal(list.status, 200);
});

test('password grant as JSON with the data-collection client credentials', async () => {
  const r = await token(
    jsonBody({ grant_type: 'password', username: A.username, password: A.password, client_id: 'cspro_android', client_secret: 'cspro' }),
  );
  assert.equal(r.status, 200);
  TokenResponse.parse(await r.json());
});

test('unknown client, wrong secret or a secret without client: 401 invalid_client', async () => {
  const base = { grant_type: 'password', username: A.username, password: A.password };
  await expectOAuthError(await token(jsonBody({ ...base, client_id: 'other', client_secret: 'cspro' })), 401, 'invalid_client');
  await expectOAuthError(await token(jsonBody({ ...base, client_id: 'cspro_android', client_secret: 'wrong' })), 401, 'invalid_client');
  await expectOAuthError(await token(jsonBody({ ...base, client_id: 'cspro_android' })), 401, 'invalid_client');
  await expectOAuthError(await token(form({ ...base, client_secret: 'cspro' })), 401, 'invalid_client');
});

test('wrong password, unknown user, disabled account: 401 invalid_grant', async () => {
  await expectOAuthError(
    await token(form({ grant_type: 'password', username: A.username, password: 'not-the-password' })),
    401,
    'invalid_grant',
    /invalid username and password/,
  );
  await expectOAuthError(
    await token(form({ grant_type: 'password', username: 'nobody', password: 'whatever-123' })),
    401,
    'invalid_grant',
    /invalid username and password/,
  );
  await expectOAuthError(
    await token(form({ grant_type: 'password', username: 'INTEGRATION', password: A.password })),
    401,
    'invalid_grant',
  );
  const D = USERS.disabled;
  await expectOAuthError(
    await token(form({ grant_type: 'password', username: D.username, password: D.password })),
    401,
    'invalid_grant',
    /disabled/,
  );
});

test('bad requests: 400 invalid_request or unsupported_grant_type, 413 for a huge body', async () => {
  await expectOAuthError(await token(form({ username: A.username, password: A.password })), 400, 'invalid_request', /grant type/);
  await expectOAuthError(await token(form({ grant_type: 'client_credentials' })), 400, 'unsupported_grant_type');
  await expectOAuthError(await token(form({ grant_type: 'password', username: A.username })), 400, 'invalid_request', /username.*password/);
  await expectOAuthError(await token(form({ grant_type: 'refresh_token' })), 400, 'invalid_request', /refresh_token/);
  await expectOAuthError(
    await token({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' }),
    400,
    'invalid_request',
    /JSON/,
  );
  await expectOAuthError(await token(jsonBody(['password'])), 400, 'invalid_request', /object/);
  await expectOAuthError(await token(jsonBody({ grant_type: 'password', username: 5, password: 'x' })), 400, 'invalid_request', /username/);
  await expectOAuthError(
    await token({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'grant_type=password' }),
    400,
    'invalid_request',
  );
  await expectOAuthError(
    await token({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&grant_type=refresh_token',
    }),
    400,
    'invalid_request',
    /more than once/,
  );
  // Too large is 413, in the OAuth shape like every other answer of the token endpoint.
  await expectOAuthError(
    await token(form({ grant_type: 'password', username: A.username, password: 'x'.repeat(100_000) })),
    413,
    'invalid_request',
    /larger than the limit of 65536 bytes/,
  );
});

test('refresh grant: new access and refresh tokens; the old refresh token is dead', async () => {
  const first = await s.login('api');
  s.advance(60_000);
  const r = await token(form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }));
  assert.equal(r.status, 200);
  const second = TokenResponse.parse(await r.json());
  assert.notEqual(second.refresh_token, first.refresh_token);
  assert.notEqual(second.access_token, first.access_token);
  assert.equal(decodeJwt(second.access_token).sub, (await s.store.users.find(A.username))!.uuid);
  // Refresh again with the new one (JSON this time): works.
  const third = await token(jsonBody({ grant_type: 'refresh_token', refresh_token: second.refresh_token }));
  assert.equal(third.status, 200);
});

test('reusing a replaced refresh token revokes the whole family, the newest token included', async () => {
  const first = await s.login('api');
  const second = TokenResponse.parse(await (await token(form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }))).json());
  // An attacker replays the first token: refused, and the family dies.
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: first.refresh_token })),
    401,
    'invalid_grant',
    /already used/,
  );
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: second.refresh_token })),
    401,
    'invalid_grant',
    /revoked/,
  );
  // Another login of the same user is a different family and is unaffected.
  const other = await s.login('api');
  assert.equal((await token(form({ grant_type: 'refresh_token', refresh_token: other.refresh_token }))).status, 200);
});

test('refresh tokens: unknown, other client, expired after 30 days, password change: invalid_grant', async () => {
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: randomBytes(32).toString('base64url') })),
    401,
    'invalid_grant',
    /invalid refresh token/,
  );
  const viaClient = TokenResponse.parse(
    await (
      await token(
        jsonBody({
          grant_type: 'password',
          username: A.username,
          password: A.password,
          client_id: 'cspro_android',
          client_secret: 'cspro',
        }),
      )
    ).json(),
  );
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: viaClient.refresh_token })),
    401,
    'invalid_grant',
    /another client/,
  );

  const t = await s.login('standard');
  s.advance(30 * 24 * 3600 * 1000 + 1000);
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: t.refresh_token })),
    401,
    'invalid_grant',
    /expired/,
  );

  const before = await s.login('standard');
  await changePassword(s.store, USERS.standard.username, USERS.standard.password);
  await expectOAuthError(
    await token(form({ grant_type: 'refresh_token', refresh_token: before.refresh_token })),
    401,
    'invalid_grant',
    /password changed/,
  );
});

test('access tokens expire after 3600 s of the injected clock: 401 invalid_token with WWW-Authenticate', async () => {
  const t = await s.login('api');
  const call = () => fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${t.access_token}` } });
  s.advance(3599_000);
  assert.equal((await call()).status, 200);
  s.advance(2_000);
  const r = await call();
  assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer .*error="invalid_token"/);
  await expectOAuthError(r, 401, 'invalid_token', /expired/);
  // The refresh grant still renews it.
  const renewed = TokenResponse.parse(await (await token(form({ grant_type: 'refresh_token', refresh_token: t.refresh_token }))).json());
  assert.equal((await fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${renewed.access_token}` } })).status, 200);
});

test('forged, alg:none, tampered, malformed or missing tokens: 401 invalid_token', async () => {
  const real = await s.login('standard');
  const claims = decodeJwt(real.access_token);
  const adminId = (await s.store.users.find(USERS.admin.username))!.uuid;
  const forged = await new SignJWT({ role: 'Administrator' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('sds')
    .setSubject(adminId)
    .setJti('x')
    .setIssuedAt(claims.iat!)
    .setExpirationTime(claims.exp!)
    .sign(randomBytes(32));
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { ...claims, sub: adminId, role: 'Administrator' };
  const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
  const [h, , sig] = real.access_token.split('.');
  const tampered = `${h}.${b64(payload)}.${sig}`;
  const hs512 = await new SignJWT({ role: 'Standard' })
    .setProtectedHeader({ alg: 'HS512' })
    .setIssuer('sds')
    .setSubject(USERS.standard.username)
    .setJti('y')
    .setIssuedAt(claims.iat!)
    .setExpirationTime(claims.exp!)
    .sign(randomBytes(64));
  for (const [what, header] of [
    ['forged', `Bearer ${forged}`],
    ['alg none', `Bearer ${none}`],
    ['tampered', `Bearer ${tampered}`],
    ['other alg', `Bearer ${hs512}`],
    ['garbage', 'Bearer abc.def'],
    ['basic', 'Basic YWRtaW46eA=='],
  ] as const) {
    const r = await fetch(`${s.base}/api/dictionaries`, { headers: { authorization: header } });
    assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/, what);
    await expectOAuthError(r, 401, 'invalid_token');
  }
  await expectOAuthError(await fetch(`${s.base}/api/dictionaries`), 401, 'invalid_token', /Authorization: Bearer/);
  // A token in the query string is not accepted (it would land in logs).
  await expectOAuthError(await fetch(`${s.base}/api/dictionaries?access_token=${real.access_token}`), 401, 'invalid_token');
});

test("a token signed with the server's key that names the account by its user name (as before 0023) is refused", async () => {
  const real = await s.login('admin');
  const claims = decodeJwt(real.access_token);
  const byName = await new SignJWT({ role: 'Administrator', ver: claims.ver })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('sds')
    .setSubject(USERS.admin.username)
    .setJti('old-form')
    .setIssuedAt(claims.iat!)
    .setExpirationTime(claims.exp!)
    .sign(await accessTokenKey(s.store, {}));
  const call = (t: string) => fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${t}` } });
  await expectOAuthError(await call(byName), 401, 'invalid_token', /no longer exists/);
  assert.equal((await call(real.access_token)).status, 200, 'the same claims naming the UUID pass: only the subject differs');
});

test('disabling or deleting an account cuts its live access token at once', async () => {
  const t = await s.login('admin');
  const call = () => fetch(`${s.base}/api/dictionaries`, { headers: { authorization: `Bearer ${t.access_token}` } });
  assert.equal((await call()).status, 200);
  await s.store.users.update(USERS.admin.username, { disabled: true });
  await expectOAuthError(await call(), 401, 'invalid_token', /no longer active/);
  await s.store.users.update(USERS.admin.username, { disabled: false });
  assert.equal((await call()).status, 200);
  await removeUser(s.store, USERS.admin.username);
  await expectOAuthError(await call(), 401, 'invalid_token');
  await expectOAuthError(await token(form({ grant_type: 'refresh_token', refresh_token: t.refresh_token })), 401, 'invalid_grant');
});

test('the request log has one line per request, one per failed login, and no secrets', () => {
  assert.ok(s.logs.length > 20);
  assert.ok(s.logs.some((l) => / auth login-failed grant=password user="integration" address=127\.0\.0\.1 /.test(l)));
  for (const line of s.logs) {
    assert.match(
      line,
      /^\d{4}-\d\d-\d\dT\S+ ((GET|POST|PUT|DELETE|PATCH|HEAD) \/\S* \d{3} \d+ms \S+|auth login-(failed|throttled) grant=\S+ user=\S+ address=\S+ .+)$/,
      line,
    );
    for (const u of Object.values(USERS)) assert.ok(!line.includes(u.password), line);
    assert.ok(!/eyJ/.test(line), `no JWT in ${line}`);
  }
});
