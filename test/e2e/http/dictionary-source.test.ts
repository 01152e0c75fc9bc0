/**
 * GET /api/dictionaries/{name} for CSPro clients (docs/sync.md#dictionaries): CSEntry stores what it
 * downloads as the .dcf and CSPro 8.1's data source parses it as a dictionary, so a request with
 * `User-Agent: CSPro sync client/…` gets the file as it was uploaded, byte for byte (byte order
 * mark and CRLF line ends included), as CSWeb serves it; everyone else keeps the spec's detail
 * form, and `?form=` chooses either way.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DictionaryDetail } from '../../../src/http/schemas/dictionaries.js';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { fixture } from '../../helpers/temp-home.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';

const CSPRO_80 = 'CSPro sync client/8.0.1';
const CSPRO_81 = 'CSPro sync client/8.1.0';

// A CSPro 7.7 text dictionary as Windows writes it: a byte order mark and CRLF line ends.
const TEXT_SOURCE = Buffer.from(readFileSync(fixture('two-level.text.dcf'), 'utf8').replace(/\r?\n/g, '\r\n'), 'utf8');
const JSON_SOURCE = readFileSync(fixture('popstan-census.json.dcf'));

let s: TestServer;
let textName: string;
let jsonName: string;

before(async () => {
  s = await startTestServer({
    seed: async (store) => {
      textName = (await uploadDictionary(store, { source: TEXT_SOURCE, label: 'twolevel' })).name;
      jsonName = (await uploadDictionary(store, { source: JSON_SOURCE, label: 'popstan' })).name;
    },
  });
});
after(() => s.close());

const get = (path: string, userAgent?: string) => s.call('standard', path, userAgent ? { headers: { 'User-Agent': userAgent } } : {});

async function bytes(r: Response): Promise<Buffer> {
  const b = Buffer.from(await r.arrayBuffer());
  assert.equal(r.status, 200, b.toString('utf8'));
  return b;
}

test('an 8.0 client gets the text dictionary byte for byte, BOM and CRLF included, as text/plain', async () => {
  assert.equal(TEXT_SOURCE.subarray(0, 3).toString('hex'), 'efbbbf');
  const r = await get(`/api/dictionaries/${textName}`, CSPRO_80);
  const b = await bytes(r);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; charset=utf-8$/);
  assert.ok(b.equals(TEXT_SOURCE), 'the body is the uploaded file');
});

test('an 8.1 client gets the JSON dictionary as uploaded, and it parses as the dictionary it is', async () => {
  const b = await bytes(await get(`/api/dictionaries/${jsonName}`, CSPRO_81));
  assert.ok(b.equals(JSON_SOURCE));
  const parsed = JSON.parse(b.toString('utf8')) as { fileType: string; name: string };
  assert.equal(parsed.fileType, 'dictionary');
  assert.equal(parsed.name, jsonName);
});

test('?form=source gives any client the file; ?form=full gives a CSPro client the detail form', async () => {
  assert.ok((await bytes(await get(`/api/dictionaries/${textName}?form=source`))).equals(TEXT_SOURCE));
  const detail = DictionaryDetail.parse(
    JSON.parse((await bytes(await get(`/api/dictionaries/${textName}?form=full`, CSPRO_80))).toString()),
  );
  assert.equal(detail.name, textName);
  assert.equal(detail.label, 'twolevel');
});

test('a client that is not CSPro keeps the detail form by default', async () => {
  const r = await get(`/api/dictionaries/${jsonName}`, 'curl/8.5.0');
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(DictionaryDetail.parse(JSON.parse((await bytes(r)).toString())).name, jsonName);
});

test('a dictionary that does not exist is a JSON 404 with a code for a CSPro client', async () => {
  const r = await get('/api/dictionaries/NO_SUCH_DICT', CSPRO_81);
  assert.equal(r.status, 404);
  const e = (await r.json()) as { error: string; code: string; message: string };
  assert.equal(e.error, 'DICTIONARY_NOT_FOUND');
  assert.equal(e.code, 'DICTIONARY_NOT_FOUND');
  assert.match(e.message, /NO_SUCH_DICT/);
});

test('?form=other is refused with USAGE, naming the three forms', async () => {
  const r = await get(`/api/dictionaries/${textName}?form=other`);
  assert.equal(r.status, 400);
  const e = (await r.json()) as { error: string; message: string };
  assert.equal(e.error, 'USAGE');
  assert.match(e.message, /source/);
});
