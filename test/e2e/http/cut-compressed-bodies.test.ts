/**
 * A compressed body cut short (or corrupt) is the client's fault, against the real server on
 * loopback: a `cssync` sync upload cut anywhere in its zlib or gzip stream is 400
 * SYNC_CONTAINER_INVALID, as the same container cut uncompressed is (once a 500 IO_ERROR when
 * the cut fell in a binary item's content); a cut compressed JSON upload is CASE_INVALID as the
 * same cut uncompressed; a cut compressed file, application package and dictionary are 400.
 * No case, file or package of any of them is stored, and no temporary file is left (docs/sync.md#binary-items).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { writeCssync } from '../../helpers/cssync-wire.js';
import { fixture } from '../../helpers/temp-home.js';
import { photoDescriptor, simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { pendingUploads, storedBytes, storedNames } from '../../helpers/stored-files.js';

const DICT = 'SIMPLECAPI_DICT';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
// Random bytes do not compress: a cut at a share of the compressed stream lands at about that share of the container.
const PHOTO = randomBytes(120_000);
const GUID = randomUUID();
const CASE = {
  id: GUID,
  caseids: '001001',
  clock: [{ deviceId: 'tablet-a', revision: 1 }],
  'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 }, HOUSING_REC: { H3: 1, PHOTO: photoDescriptor(GUID, PHOTO) } }),
};
const CONTAINER = writeCssync([CASE], [{ header: { caseid: GUID, signature: md5(PHOTO) }, content: PHOTO }]);

/**
 * The shortest prefix of a compressed container that inflates past the container's magic but not
 * past its case JSON. A fixed byte count is not enough: the Huffman tables of the first deflate
 * block vary with the random photo and can hide every output byte of the first 60.
 */
function cutInCaseJson(z: Buffer, kind: 'zlib' | 'gzip', jsonEnd: number): number {
  const inflate = kind === 'zlib' ? inflateSync : gunzipSync;
  for (let n = 12; n < z.length; n++) {
    const out = inflate(z.subarray(0, n), { finishFlush: constants.Z_SYNC_FLUSH });
    if (out.length >= 20) {
      assert.ok(out.length < jsonEnd, `${kind}: a cut at ${n} inflates past the case JSON`);
      return n;
    }
  }
  throw new Error(`${kind}: no prefix inflates 20 bytes`);
}

async function send(
  ts: TestServer,
  method: string,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  user: UserKey = 'standard',
) {
  const r = await ts.call(user, path, { method, headers: { 'x-csw-device': 'tablet-a', ...headers }, body });
  return { status: r.status, body: (await r.json()) as { error?: string; message?: string } };
}

const upload = (ts: TestServer, body: Buffer) =>
  send(ts, 'POST', `/api/dictionaries/${DICT}/cases`, body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });

/**
 * No case of the refused uploads is stored and no temporary file is left under files/binary-items.
 * A content that arrived whole before the cut may stay, under its md5 (docs/decisions.md#binary-case-items-issue-20).
 */
async function assertNothingStored(ts: TestServer): Promise<void> {
  const dict = (await ts.store.dictionaries.find(DICT))!;
  assert.equal(await ts.store.cases.count(dict.id), 0, 'no case stored');
  assert.equal(await pendingUploads(ts.store), 0, 'no temporary file is left');
  const folder = DICT.toLowerCase();
  for (const name of await storedNames(ts.store, 'binary-items', folder)) {
    assert.equal(md5((await storedBytes(ts.store, 'binary-items', `${folder}/${name}`))!), name, 'a content kept is whole');
  }
  assert.deepEqual(
    ts.logs.filter((l) => /internal error/.test(l)),
    [],
  );
}

test('a cssync upload cut anywhere in its zlib or gzip stream is 400 SYNC_CONTAINER_INVALID, as the same cut uncompressed', async (t) => {
  const ts = await startTestServer({
    seed: async (store) => {
      await uploadDictionary(store, { source: Buffer.from(simpleCapiWithPhoto(fixture('simple-capi.dcf'))), label: 'simplecapi' });
    },
  });
  t.after(() => ts.close());
  const jsonEnd = 14 + JSON.stringify([CASE]).length;

  // Uncompressed: cut in the case JSON, in the item's header, in its content.
  for (const at of [jsonEnd - 20, jsonEnd + 10, Math.floor(CONTAINER.length / 2), CONTAINER.length - 1]) {
    const r = await upload(ts, CONTAINER.subarray(0, at));
    assert.equal(r.status, 400, `uncompressed cut at ${at}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error, 'SYNC_CONTAINER_INVALID', `uncompressed cut at ${at}`);
  }

  for (const [name, zip, trailer] of [
    ['zlib', deflateSync, 4],
    ['gzip', gzipSync, 8],
  ] as const) {
    const z = zip(CONTAINER);
    const cuts: [string, Buffer][] = [
      ['in the case JSON', z.subarray(0, cutInCaseJson(z, name, jsonEnd))],
      ['in the binary content, early', z.subarray(0, Math.floor(z.length * 0.3))],
      ['in the binary content, late', z.subarray(0, Math.floor(z.length * 0.9))],
      ['with no checksum trailer', z.subarray(0, z.length - trailer)],
      ['one byte short', z.subarray(0, z.length - 1)],
      ['with a damaged checksum', Buffer.concat([z.subarray(0, z.length - trailer), Buffer.alloc(trailer, 0xaa)])],
    ];
    for (const [what, body] of cuts) {
      const r = await upload(ts, body);
      assert.equal(r.status, 400, `${name} ${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error, 'SYNC_CONTAINER_INVALID', `${name} ${what}: ${r.body.message}`);
      assert.match(
        r.body.message!,
        /^the cssync container is cut short or corrupt inside its compression \(.+\) \(at byte \d+\); nothing was stored$/,
      );
    }
    await assertNothingStored(ts);
  }

  // The whole container, compressed either way, is stored.
  const whole = await upload(ts, deflateSync(CONTAINER));
  assert.equal(whole.status, 200, JSON.stringify(whole.body));
  assert.ok((await storedBytes(ts.store, 'binary-items', `${DICT.toLowerCase()}/${md5(PHOTO)}`))!.equals(PHOTO));
});

test('other compressed bodies cut short: JSON upload, file, application package, dictionary are 400, nothing stored', async (t) => {
  const ts = await startTestServer({
    seed: async (store) => {
      await uploadDictionary(store, { source: Buffer.from(simpleCapiWithPhoto(fixture('simple-capi.dcf'))), label: 'simplecapi' });
    },
  });
  t.after(() => ts.close());

  // A JSON upload gets the code of the same cut uncompressed.
  const json = Buffer.from(JSON.stringify(Array.from({ length: 50 }, () => ({ ...CASE, id: randomUUID(), 'level-1': '{}' }))));
  const plainCut = await upload(ts, json.subarray(0, Math.floor(json.length / 2)));
  assert.equal(plainCut.status, 400);
  for (const zip of [deflateSync, gzipSync]) {
    const z = zip(json);
    const r = await upload(ts, z.subarray(0, z.length - 2));
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error, plainCut.body.error);
  }
  await assertNothingStored(ts);

  const content = randomBytes(50_000);
  for (const zip of [deflateSync, gzipSync]) {
    const cut = zip(content).subarray(0, 30_000);
    const file = await send(ts, 'PUT', '/api/files/notes/cut.bin/content', cut, { 'content-encoding': 'deflate' });
    assert.equal(file.status, 400, JSON.stringify(file.body));
    assert.equal(file.body.error, 'USAGE');
    assert.match(file.body.message!, /labelled compressed but is not a readable zlib or gzip stream/);
    const app = await send(ts, 'PUT', '/api/apps/survey', cut, { 'content-encoding': 'deflate', 'content-type': 'application/zip' }, 'api');
    assert.equal(app.status, 400, JSON.stringify(app.body));
    assert.equal(app.body.error, 'USAGE');
  }
  assert.equal((await ts.call('standard', '/api/files/notes/cut.bin/content')).status, 404, 'no file stored');
  assert.equal((await ts.call('standard', '/api/apps/survey')).status, 404, 'no package stored');

  const dcf = deflateSync(readFileSync(fixture('popstan-census.json.dcf')));
  const dict = await send(
    ts,
    'PUT',
    '/api/dictionaries/POPSTAN_DICT',
    dcf.subarray(0, Math.floor(dcf.length / 2)),
    { 'content-type': 'text/plain' },
    'admin',
  );
  assert.equal(dict.status, 400, JSON.stringify(dict.body));
  assert.equal(dict.body.error, 'USAGE');
  assert.equal((await ts.call('admin', '/api/dictionaries/POPSTAN_DICT')).status, 404, 'no dictionary stored');
  assert.deepEqual(
    ts.logs.filter((l) => /internal error/.test(l)),
    [],
  );
});
