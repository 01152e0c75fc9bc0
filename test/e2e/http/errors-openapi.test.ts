import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { z } from 'zod';
import { createApp } from '../../../src/http/create-app.js';
import { readJson } from '../../../src/http/read-body.js';
import { errorResponse } from '../../../src/http/render-error.js';
import { ErrorBody } from '../../../src/http/schemas/common.js';
import { DictionaryList, DictionaryUploadReply } from '../../../src/http/schemas/dictionaries.js';
import { addUser } from '../../../src/core/auth/users.js';
import { fixture, sqliteDb, storeKindOf, storeSql, tempStore } from '../../helpers/temp-home.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

async function apiError(r: Response, status: number, code: string): Promise<z.infer<typeof ErrorBody>> {
  const text = await r.text();
  assert.equal(r.status, status, text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(!/<html|\bat .*\.(ts|js):\d+/i.test(text), `no HTML, no stack: ${text}`);
  const e = ErrorBody.parse(JSON.parse(text));
  assert.equal(e.error, code);
  return e;
}

test('unknown routes: 404 API-002 in {error, message}, with or without a token', async () => {
  await apiError(await s.call(null, '/'), 404, 'API-002');
  await apiError(await s.call(null, '/api/nothing'), 404, 'API-002');
  await apiError(await s.call('admin', '/api/dictionaries/X/cases/Y/Z'), 404, 'API-002');
  await apiError(await s.call(null, '/unknown-webhook.php'), 404, 'API-002');
});

test('a wrong verb: 405 API-001 with Allow', async () => {
  const r = await s.call('admin', '/api/dictionaries', { method: 'PUT' });
  assert.equal(r.headers.get('allow'), 'GET, HEAD, POST');
  await apiError(r, 405, 'API-001');
  const t = await s.call(null, '/api/token', { method: 'GET' });
  assert.equal(t.headers.get('allow'), 'POST');
  await apiError(t, 405, 'API-001');
  await apiError(await s.call('admin', '/api/files/media/a.jpg', { method: 'DELETE' }), 405, 'API-001');
  await apiError(await s.call('admin', '/api/openapi.json', { method: 'POST' }), 405, 'API-001');
});

test('JSON bodies: not JSON is 400 API-003, a wrong shape 400 USAGE naming the field', async () => {
  const app = new Hono();
  app.onError((err, c) => errorResponse(c, err));
  app.post('/x', async (c) => c.json(await readJson(c, z.object({ dictionaries: z.array(z.string()) }))));
  const post = (body: string) => app.request('/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await apiError(await post('{"dictionaries": ['), 400, 'API-003');
  const e = await apiError(await post('{"dictionaries": [1]}'), 400, 'USAGE');
  assert.match(e.message, /dictionaries\.0/);
  assert.deepEqual(await (await post('{"dictionaries": ["A"]}')).json(), { dictionaries: ['A'] });
});

test('security headers on every reply, errors included; JSON replies are not cacheable', async () => {
  for (const r of [await s.call(null, '/api/openapi.json'), await s.call(null, '/nope'), await s.call(null, '/api/dictionaries')]) {
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.headers.get('x-powered-by'), null);
    await r.body?.cancel();
  }
});

test('an internal failure is 500 INTERNAL with a generic message; the stack goes to the log only', async () => {
  const t = await startTestServer();
  try {
    const token = (await t.login('admin')).access_token;
    // The store fails under the server: the SQLite connection closed, PostgreSQL's table gone.
    if (storeKindOf(t.store) === 'sqlite') sqliteDb(t.store).close();
    else await storeSql(t.store, 'ALTER TABLE dictionaries RENAME TO dictionaries_gone');
    const r = await fetch(`${t.base}/api/dictionaries`, { headers: { authorization: `Bearer ${token}` } });
    const e = await apiError(r, 500, 'INTERNAL');
    assert.equal(e.message, 'internal error; the server log has the details');
    assert.ok(t.logs.some((l) => /internal error on GET \/api\/dictionaries/.test(l)));
  } finally {
    await t.close();
  }
});

test('/api/openapi.json: OpenAPI 3.1 with every route, its security and resolvable schemas', async () => {
  const r = await s.call(null, '/api/openapi.json');
  assert.equal(r.status, 200);
  const doc = (await r.json()) as {
    openapi: string;
    paths: Record<
      string,
      Record<string, { security?: unknown[]; responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>
    >;
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };
  assert.equal(doc.openapi, '3.1.0');
  const expected: Record<string, string[]> = {
    '/api/token': ['post'],
    '/api/dictionaries': ['get', 'post'],
    '/api/dictionnaires': ['get'],
    '/api/dictionaries/{name}': ['get', 'put', 'delete'],
    '/api/dictionaries/{name}/cases': ['get', 'post'],
    '/api/dictionaries/{name}/cases/{id}': ['get', 'delete'],
    '/api/dictionaries/{name}/metadata': ['get'],
    '/api/dictionaries/{name}/binary-data/{signature}': ['get'],
    '/api/dictionaries/{name}/data': ['delete'],
    '/api/server': ['get'],
    '/api/files/{path}/content': ['get', 'put'],
    '/api/folders': ['get'],
    '/api/folders/{path}': ['get'],
    '/api/apps': ['get'],
    '/api/apps/{name}': ['get', 'put', 'delete'],
    '/api/messages': ['get', 'post'],
    '/api/dictionaries/{name}/syncs': ['get'],
    '/api/sync-report': ['get'],
    '/api/dictionaries/{name}/area-names': ['put'],
    '/api/files/media/{filename}': ['get'],
    '/api/files/media/{filename}/content': ['get'],
    '/api/breakout/start': ['post'],
    '/api/breakout/status/{job_id}': ['get'],
    '/api/breakout/jobs': ['get'],
    '/api/breakout/tables/{dictionary}': ['get', 'delete'],
    '/api/breakout/trigger': ['post'],
    '/api/logs/breakout': ['get'],
    '/api/metrics': ['get'],
    '/api/openapi.json': ['get'],
  };
  for (const [path, methods] of Object.entries(expected)) {
    assert.ok(doc.paths[path], `path ${path}`);
    assert.deepEqual(Object.keys(doc.paths[path]!).sort(), [...methods].sort(), path);
    for (const m of methods) {
      const op: { security?: unknown[]; responses: Record<string, unknown>; parameters?: { name: string; in: string }[] } =
        doc.paths[path]![m]!;
      const isPublic = path === '/api/token' || path === '/api/openapi.json';
      assert.deepEqual(op.security, isPublic ? [] : [{ bearerAuth: [] }], `${m} ${path} security`);
      if (!isPublic) assert.ok(op.responses['401'] && op.responses['403'], `${m} ${path} documents 401/403`);
      for (const p of path.match(/\{(\w+)\}/g) ?? []) {
        assert.ok(
          op.parameters?.some((x) => x.in === 'path' && `{${x.name}}` === p),
          `${m} ${path} parameter ${p}`,
        );
      }
    }
  }
  assert.deepEqual(
    doc.paths['/api/dictionaries/{name}/cases']!.get!.parameters!.filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort(),
    ['limit', 'offset'],
  );
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const id of [
    'Error',
    'OAuthError',
    'TokenResponse',
    'DictionaryListItem',
    'DictionaryDetail',
    'CaseList',
    'CaseSummary',
    'FileInfo',
    'JobStatus',
    'Metrics',
  ]) {
    assert.ok(doc.components.schemas[id], `schema ${id}`);
  }
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  assert.ok(refs.length > 10);
  for (const ref of refs) {
    const id = ref.slice('"$ref":"#/components/schemas/'.length, -1);
    assert.ok(doc.components.schemas[id], `dangling ${ref}`);
  }
});

test('createApp works without a port through app.request(), uploads included', async () => {
  const t = await tempStore();
  try {
    await addUser(t.store, 'ops', 'API', 'ops-password-1');
    const app = await createApp({ store: t.store, config: { log: () => {}, env: {} } });
    const tok = await app.request('/api/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'password',
        username: 'ops',
        password: 'ops-password-1',
        client_id: 'cspro_android',
        client_secret: 'cspro',
      }),
    });
    const { access_token } = (await tok.json()) as { access_token: string };
    const form = new FormData();
    form.append('file', new Blob([readFileSync(fixture('idb-population.dcf'))]), 'idb.dcf');
    form.append('label', 'idb');
    const up = await app.request('/api/dictionaries', { method: 'POST', body: form, headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(up.status, 201);
    const reply = DictionaryUploadReply.parse(await up.json());
    const list = DictionaryList.parse(
      await (await app.request('/api/dictionaries', { headers: { authorization: `Bearer ${access_token}` } })).json(),
    );
    assert.deepEqual(
      list.map((d) => d.name),
      [reply.name],
    );
  } finally {
    await t.cleanup();
  }
});

test('SDS_JWT_SECRET: too short is refused; when set, tokens survive a new app over another store', async () => {
  const t = await tempStore();
  try {
    await assert.rejects(createApp({ store: t.store, config: { env: { SDS_JWT_SECRET: 'short' } } }), /SDS_JWT_SECRET/);
    // Without the variable, the key is generated once and kept in the store.
    await createApp({ store: t.store, config: { env: {}, log: () => {} } });
    const key = await t.store.settings.get('jwt_hs256_key');
    assert.match(key ?? '', /^[A-Za-z0-9_-]{43}$/);
    await createApp({ store: t.store, config: { env: {}, log: () => {} } });
    assert.equal(await t.store.settings.get('jwt_hs256_key'), key);
  } finally {
    await t.cleanup();
  }
});
