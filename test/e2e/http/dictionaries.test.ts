import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { CaseList } from '../../../src/http/schemas/cases.js';
import {
  DictionaryDeleteReply,
  DictionaryDetail,
  DictionaryList,
  DictionaryShort,
  DictionaryUploadReply,
} from '../../../src/http/schemas/dictionaries.js';
import { fixture } from '../../helpers/temp-home.js';
import { seedEmptyDictionary, seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';

let s: TestServer;
let popstan: string;
let simple: string;
const MAX_UPLOAD = 50 * 1024;

before(async () => {
  s = await startTestServer({
    config: { maxUploadBytes: MAX_UPLOAD },
    seed: async (store) => {
      popstan = await seedPopstan(store);
      simple = await seedEmptyDictionary(store);
    },
  });
});
after(() => s.close());

async function body<S extends z.ZodType>(r: Response, status: number, schema: S): Promise<z.output<S>> {
  const text = await r.text();
  assert.equal(r.status, status, text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, text);
  return schema.parse(JSON.parse(text));
}

async function apiError(r: Response, status: number, code: string, message?: RegExp): Promise<void> {
  const e = await body(r, status, ErrorBody);
  assert.equal(e.error, code);
  if (message) assert.match(e.message, message);
}

function uploadForm(file: Buffer | string | null, label: string | null, filename = 'dict.dcf'): FormData {
  const f = new FormData();
  if (file !== null) f.append('file', new Blob([file]), filename);
  if (label !== null) f.append('label', label);
  return f;
}

const countDictionaries = async () => (await s.store.dictionaries.list()).length;

test('GET /api/dictionaries and the /api/dictionnaires alias: the same list of list items', async () => {
  const list = await body(await s.call('standard', '/api/dictionaries'), 200, DictionaryList);
  assert.deepEqual(list.map((d) => d.name).sort(), [popstan, simple].sort());
  const p = list.find((d) => d.name === popstan)!;
  assert.equal(p.label, 'popstan');
  assert.equal(typeof p.version, 'string');
  assert.deepEqual(Object.keys(p).sort(), ['caseCount', 'created_at', 'dictionaryName', 'label', 'modifiedTime', 'name', 'version']);
  const alias = await body(await s.call('standard', '/api/dictionnaires'), 200, DictionaryList);
  assert.deepEqual(alias, list);
});

test('GET /api/dictionaries/{name}: the detail form; 404 {error, message} naming close matches', async () => {
  const d = await body(await s.call('standard', `/api/dictionaries/${popstan}`), 200, DictionaryDetail);
  assert.equal(d.name, popstan);
  assert.equal(d.label, 'popstan');
  assert.ok(d.levels.length >= 1 && d.records.length >= 2);
  for (const x of [...d.levels, ...d.records]) assert.deepEqual(Object.keys(x).sort(), ['label', 'name']);
  await apiError(await s.call('standard', '/api/dictionaries/NOPE_DICT'), 404, 'DICTIONARY_NOT_FOUND', /NOPE_DICT not found/);
  await apiError(
    await s.call('standard', `/api/dictionaries/${popstan.toLowerCase()}`),
    404,
    'DICTIONARY_NOT_FOUND',
    /case-sensitive.*did you mean/,
  );
});

test('GET /api/dictionaries/{name}?form=short: the short detail form (name, label, levels, records); a bad form 400', async () => {
  const full = await body(await s.call('standard', `/api/dictionaries/${popstan}`), 200, DictionaryDetail);
  const short = await body(await s.call('standard', `/api/dictionaries/${popstan}?form=short`), 200, DictionaryShort);
  assert.deepEqual(Object.keys(short).sort(), ['label', 'levels', 'name', 'records']);
  assert.deepEqual(short, { name: full.name, label: full.label, levels: full.levels, records: full.records });
  assert.deepEqual(await body(await s.call('standard', `/api/dictionaries/${popstan}?form=full`), 200, DictionaryDetail), full);
  await apiError(await s.call('standard', `/api/dictionaries/${popstan}?form=tiny`), 400, 'USAGE', /form/);
  await apiError(await s.call('standard', '/api/dictionaries/NOPE_DICT?form=short'), 404, 'DICTIONARY_NOT_FOUND');
});

test('POST /api/dictionaries: multipart file + label → 201 {message, name, label}; again → 200 replaced', async () => {
  const r = await s.call('api', '/api/dictionaries', {
    method: 'POST',
    body: uploadForm(readFileSync(fixture('two-level.text.dcf')), 'twolevel', 'two-level.dcf'),
  });
  const up = await body(r, 201, DictionaryUploadReply);
  assert.deepEqual(Object.keys(up).sort(), ['breakout_rebuild', 'label', 'message', 'name', 'sync_name']);
  assert.equal(up.breakout_rebuild, null);
  assert.equal(up.sync_name, null);
  assert.equal(up.label, 'twolevel');
  assert.match(up.message, new RegExp(up.name));
  const detail = await body(await s.call('standard', `/api/dictionaries/${up.name}`), 200, DictionaryDetail);
  assert.equal(detail.label, 'twolevel');
  const again = await body(
    await s.call('admin', '/api/dictionaries', {
      method: 'POST',
      body: uploadForm(readFileSync(fixture('two-level.text.dcf')), 'twolevel'),
    }),
    200,
    DictionaryUploadReply,
  );
  assert.match(again.message, /replaced/);
});

test('POST /api/dictionaries with an invalid file, label or form: 400 and nothing stored', async () => {
  const before = await countDictionaries();
  const post = (f: FormData | string, headers: Record<string, string> = {}) =>
    s.call('api', '/api/dictionaries', { method: 'POST', body: f, headers });
  await apiError(await post(uploadForm('[Dictionary]\nName=BROKEN\nthis is not a dictionary', 'broken')), 400, 'DICT_INVALID');
  await apiError(await post(uploadForm('{"software": "CSPro", "name": ', 'broken')), 400, 'DICT_INVALID');
  await apiError(await post(uploadForm(Buffer.alloc(0), 'broken')), 400, 'DICT_INVALID');
  await apiError(await post(uploadForm(readFileSync(fixture('idb-population.dcf')), '9bad-label')), 400, 'LABEL_INVALID');
  await apiError(await post(uploadForm(readFileSync(fixture('idb-population.dcf')), null)), 400, 'LABEL_INVALID');
  await apiError(await post(uploadForm(null, 'idb')), 400, 'USAGE', /"file" part/);
  await apiError(await post('label=x', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'USAGE', /multipart/);
  await apiError(await post('--x\r\nbroken', { 'content-type': 'multipart/form-data; boundary=x' }), 400, 'MULTIPART_INVALID', /multipart/);
  await apiError(await post('--x\r\nbroken', { 'content-type': 'multipart/form-data' }), 400, 'MULTIPART_INVALID', /no boundary/);
  // A label used by another dictionary would make breakout tables collide.
  await apiError(await post(uploadForm(readFileSync(fixture('idb-population.dcf')), 'popstan')), 409, 'CONFLICT', /popstan/);
  assert.equal(await countDictionaries(), before);
});

test('POST /api/dictionaries larger than the limit: 413, streamed or declared, nothing stored', async () => {
  const before = await countDictionaries();
  const big = Buffer.alloc(MAX_UPLOAD + 1, 0x20);
  // Declared Content-Length far above the limit: refused before reading.
  await apiError(
    await s.call('api', '/api/dictionaries', { method: 'POST', body: uploadForm(Buffer.alloc(MAX_UPLOAD * 3, 0x20), 'huge') }),
    413,
    'PAYLOAD_TOO_LARGE',
  );
  // Just above the limit: busboy stops at the limit.
  await apiError(
    await s.call('api', '/api/dictionaries', { method: 'POST', body: uploadForm(big, 'huge') }),
    413,
    'PAYLOAD_TOO_LARGE',
    new RegExp(String(MAX_UPLOAD)),
  );
  // Chunked, no Content-Length at all.
  const encoded = new Response(uploadForm(big, 'huge'));
  const chunked = await s.call('api', '/api/dictionaries', {
    method: 'POST',
    body: encoded.body,
    headers: { 'content-type': encoded.headers.get('content-type')! },
    duplex: 'half',
  } as RequestInit);
  await apiError(chunked, 413, 'PAYLOAD_TOO_LARGE');
  assert.equal(await countDictionaries(), before);
  // The server is still fine afterwards.
  assert.equal((await s.call('api', '/api/dictionaries')).status, 200);
});

test('roles: Standard may read but not upload or delete; API may upload but not delete', async () => {
  const denied = async (r: Response) => {
    const e = await body(r, 403, OAuthErrorBody);
    assert.equal(e.error, 'access_denied');
  };
  await denied(
    await s.call('standard', '/api/dictionaries', { method: 'POST', body: uploadForm(readFileSync(fixture('idb-population.dcf')), 'idb') }),
  );
  await denied(await s.call('standard', `/api/dictionaries/${simple}`, { method: 'DELETE' }));
  await denied(await s.call('api', `/api/dictionaries/${simple}`, { method: 'DELETE' }));
  assert.ok(await s.store.dictionaries.find(simple));
  assert.equal((await s.call('standard', `/api/dictionaries/${popstan}/cases?limit=1`)).status, 200);
});

test('DELETE /api/dictionaries/{name}: 200 {message, name}; 409 with cases; 404 unknown', async () => {
  await apiError(await s.call('admin', `/api/dictionaries/${popstan}`, { method: 'DELETE' }), 409, 'DICT_IN_USE', /cases/);
  assert.ok(await s.store.dictionaries.find(popstan));
  const r = await body(await s.call('admin', `/api/dictionaries/${simple}`, { method: 'DELETE' }), 200, DictionaryDeleteReply);
  assert.deepEqual(r, { message: `Dictionary ${simple} deleted`, name: simple });
  await apiError(await s.call('admin', `/api/dictionaries/${simple}`, { method: 'DELETE' }), 404, 'DICTIONARY_NOT_FOUND');
});

test('GET /api/dictionaries/{name}/cases: the envelope with defaults 100/0, paging, summaries', async () => {
  const all = await body(await s.call('standard', `/api/dictionaries/${popstan}/cases`), 200, CaseList);
  assert.equal(all.limit, 100);
  assert.equal(all.offset, 0);
  assert.equal(all.data.length, 100);
  assert.equal(all.total, await s.store.cases.count((await s.store.dictionaries.find(popstan))!.id));
  assert.ok(all.total > 1000);
  const c = all.data[0]!;
  assert.deepEqual(Object.keys(c).sort(), ['case_label', 'deleted', 'guid', 'modified_date', 'verified']);
  assert.equal(c.deleted, false);
  const page = await body(await s.call('standard', `/api/dictionaries/${popstan}/cases?limit=5&offset=10`), 200, CaseList);
  assert.equal(page.limit, 5);
  assert.equal(page.offset, 10);
  assert.deepEqual(page.data, all.data.slice(10, 15));
  const tail = await body(await s.call('standard', `/api/dictionaries/${popstan}/cases?offset=${all.total}`), 200, CaseList);
  assert.deepEqual(tail.data, []);
});

test('GET /api/dictionaries/{name}/cases with bad numbers: 400 USAGE; unknown dictionary: 404', async () => {
  for (const q of ['limit=abc', 'limit=0', 'limit=1001', 'limit=1.5', 'offset=-1', 'offset=x', 'limit=']) {
    await apiError(await s.call('standard', `/api/dictionaries/${popstan}/cases?${q}`), 400, 'USAGE', /limit|offset/);
  }
  await apiError(await s.call('standard', '/api/dictionaries/NOPE/cases'), 404, 'DICTIONARY_NOT_FOUND');
});
