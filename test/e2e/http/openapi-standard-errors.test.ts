// The statuses every route of its kind may answer are in the served document the same way
// everywhere (400 for path parameters, 413 for bodies), and the replies of the real server keep
// to what the document says for them (docs/http-api.md, "Statuses every route may answer").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';

type Op = {
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};

let s: TestServer;
let doc: OpenApiDoc & { paths: Record<string, Record<string, Op>> };
before(async () => {
  s = await startTestServer();
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as typeof doc;
});
after(() => s.close());

function operations(): { method: string; path: string; op: Op }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));
}

async function expectDocumented(r: Response, method: string, template: string, status: number): Promise<Record<string, unknown>> {
  const text = await r.text();
  assert.equal(r.status, status, text);
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(checkReply(doc, method, template, status, body), [], `${method} ${template} ${status}: ${text}`);
  return body;
}

test('every route with a path parameter documents 400, every route with a body documents 413', () => {
  const ops = operations();
  const withParams = ops.filter((o) => o.path.includes('{'));
  const withBody = ops.filter((o) => o.op.requestBody);
  assert.ok(
    withParams.length >= 25 && withBody.length >= 12,
    `${withParams.length} routes with parameters, ${withBody.length} with a body`,
  );
  for (const { method, path, op } of withParams) assert.ok(op.responses['400'], `${method} ${path} documents 400`);
  for (const { method, path, op } of withBody) assert.ok(op.responses['413'], `${method} ${path} documents 413`);
  // The builder's text names the parameters; a route's own 400 keeps its text and gains that case.
  assert.match(doc.paths['/api/dictionaries/{name}/cases/{id}']!.get!.responses['400']!.description, /`name`, `id`/);
  assert.match(doc.paths['/api/dictionaries/{name}']!.get!.responses['400']!.description, /`form`.*; a path parameter \(`name`\)/);
  assert.match(doc.paths['/api/folders/{path}']!.get!.responses['400']!.description, /PATH_INVALID/);
  assert.match(doc.paths['/scheduler/add']!.post!.responses['413']!.description, /16384 bytes/);
});

test('CSWeb’s 404 shape is a named schema, on the files, folders and apps routes', async () => {
  for (const path of ['/api/files/{path}/content', '/api/folders/{path}', '/api/apps/{name}']) {
    assert.equal(
      doc.paths[path]!.get!.responses['404']!.content!['application/json']!.schema.$ref,
      '#/components/schemas/CswebError',
      path,
    );
  }
  const file = await expectDocumented(
    await s.call('standard', '/api/files/nowhere/x.txt/content'),
    'GET',
    '/api/files/{path}/content',
    404,
  );
  assert.equal(file.code, 'file_not_found');
  const folder = await expectDocumented(await s.call('standard', '/api/folders/nowhere'), 'GET', '/api/folders/{path}', 404);
  assert.equal(folder.code, 'directory_not_found');
  const app = await expectDocumented(await s.call('standard', '/api/apps/nothing'), 'GET', '/api/apps/{name}', 404);
  assert.deepEqual(app, { type: 'error', status: 404, code: 'app_not_found', message: 'application nothing not found' });
  // Another shape on those routes is not CSWeb's: the document would refuse an {error, message} 404.
  assert.notDeepEqual(checkReply(doc, 'GET', '/api/apps/{name}', 404, { error: 'NOT_FOUND', message: 'x' }), []);
});

test('bad path parameters answer the documented 400', async () => {
  const long = await expectDocumented(
    await s.call('standard', `/api/dictionaries/${'a'.repeat(200)}/cases/x`),
    'GET',
    '/api/dictionaries/{name}/cases/{id}',
    400,
  );
  assert.equal(long.error, 'USAGE');
  const app = await expectDocumented(await s.call('standard', `/api/apps/${'a'.repeat(201)}`), 'GET', '/api/apps/{name}', 400);
  assert.equal(app.error, 'USAGE');
  const folder = await expectDocumented(await s.call('api', '/api/folders/-1'), 'GET', '/api/folders/{path}', 400);
  assert.equal(folder.error, 'PATH_INVALID');
});

test('a body over the limit: 413 as documented, in the OAuth shape on the token endpoint', async () => {
  const big = JSON.stringify({ id: 'x'.repeat(20_000) });
  const sched = await expectDocumented(
    await s.call('admin', '/scheduler/toggle', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: big }),
    'PUT',
    '/scheduler/toggle',
    413,
  );
  assert.deepEqual(sched, {
    error: 'PAYLOAD_TOO_LARGE',
    message: 'the request body is larger than the limit of 16384 bytes',
    details: { limit: 16384 },
  });
  const form = `grant_type=password&username=${'u'.repeat(70_000)}&password=x`;
  const r = await s.call(null, '/api/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const token = await expectDocumented(r, 'POST', '/api/token', 413);
  assert.deepEqual(token, { error: 'invalid_request', error_description: 'the request body is larger than the limit of 65536 bytes' });
});
