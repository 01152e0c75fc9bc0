/**
 * Binary case items over sync (docs/sync.md#binary-items), against the real server on loopback: a
 * tablet uploads a case with a photo in the cssync container, another tablet downloads it and gets
 * the same bytes; the content is sent only once per server, a content whose md5 is not its
 * signature and one over the limit are refused with nothing stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { startTestServer } from '../../helpers/http-server.js';
import { SyncDevice } from '../../helpers/sync-client.js';
import { fixture } from '../../helpers/temp-home.js';
import { photoDescriptor, simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';

const DICT = 'SIMPLECAPI_DICT';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const PHOTO = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 13 + 5) % 256));
const LIMIT = 200_000;

const wireCase = (guid: string, hh: number, device: string, photo?: Buffer) => ({
  id: guid,
  caseids: `001${String(hh).padStart(3, '0')}`,
  clock: [{ deviceId: device, revision: 1 }],
  'level-1': JSON.stringify({
    id: { CLUSTER: 1, HHNO: hh },
    HOUSING_REC: { H3: 1, ...(photo ? { PHOTO: photoDescriptor(guid, photo) } : {}) },
  }),
});

test('a photo uploaded in a cssync container by one tablet reaches another with the same bytes', async (t) => {
  const ts = await startTestServer({
    config: { limits: { binaryItemBytes: LIMIT } },
    seed: async (store) => {
      await uploadDictionary(store, { source: Buffer.from(simpleCapiWithPhoto(fixture('simple-capi.dcf'))), label: 'simplecapi' });
    },
  });
  t.after(() => ts.close());
  const a = new SyncDevice(ts, 'tablet0000000a');
  const g1 = randomUUID();
  const up = await a.putContainer(
    DICT,
    [wireCase(g1, 1, 'tablet0000000a', PHOTO), wireCase(randomUUID(), 2, 'tablet0000000a')],
    [{ header: { caseid: g1, signature: md5(PHOTO), length: PHOTO.length, metadata: { filename: 'house.jpg' } }, content: PHOTO }],
  );
  assert.equal(up.status, 200, await up.clone().text());

  // Sync sends a content once per server: a later case naming the same photo comes without it.
  const g3 = randomUUID();
  const again = await a.putContainer(DICT, [wireCase(g3, 3, 'tablet0000000a', PHOTO)], []);
  assert.equal(again.status, 200);
  // A plain JSON upload naming a stored signature is just as good.
  assert.equal((await a.put(DICT, [wireCase(randomUUID(), 4, 'tablet0000000a', PHOTO)])).status, 200);

  const b = new SyncDevice(ts, 'tablet0000000b');
  const down = await b.get(DICT, 100);
  assert.equal(down.cases.length, 4);
  const one = down.cases.find((c) => c.id === g1)!;
  const level = JSON.parse(one['level-1']!) as { HOUSING_REC: { PHOTO: { signature: string; length: number } } };
  assert.equal(level.HOUSING_REC.PHOTO.signature, md5(PHOTO));
  assert.equal(level.HOUSING_REC.PHOTO.length, PHOTO.length);
  const got = b.binaries.get(md5(PHOTO));
  assert.ok(got, 'the download carried the photo');
  assert.ok(got.content.equals(PHOTO), 'the same bytes');
  assert.equal(got.header.length, PHOTO.length);
  assert.equal(b.binaries.size, 1);

  // A chunk of cases without binary items stays a plain JSON array.
  const plain = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
    headers: { 'x-csw-device': 'tablet0000000c', 'x-csw-case-range-count': '100', 'x-csw-universe': '"001002"' },
  });
  assert.equal(plain.headers.get('content-type')?.startsWith('application/json'), true);
  assert.equal(((await plain.json()) as unknown[]).length, 1);

  // A content whose md5 is not its signature: 400, and the case is not stored.
  const wrong = Buffer.from(PHOTO);
  wrong[0] = wrong[0]! ^ 0xff;
  const other = randomUUID();
  const bad = await a.putContainer(
    DICT,
    [wireCase(other, 5, 'tablet0000000a', wrong)],
    [{ header: { caseid: other, signature: md5(wrong) }, content: PHOTO }],
  );
  assert.equal(bad.status, 400);
  const badBody = (await bad.json()) as { error: string; message: string };
  assert.equal(badBody.error, 'BINARY_ITEM_SIGNATURE_MISMATCH');
  assert.ok(badBody.message.includes(md5(wrong)), badBody.message);
  // Over the limit: 413 from the announced length.
  const big = Buffer.alloc(LIMIT + 1, 7);
  const tooBig = await a.putContainer(
    DICT,
    [wireCase(other, 5, 'tablet0000000a', big)],
    [{ header: { signature: md5(big) }, content: big }],
  );
  assert.equal(tooBig.status, 413);
  assert.equal(((await tooBig.json()) as { error: string }).error, 'PAYLOAD_TOO_LARGE');
  const dict = (await ts.store.dictionaries.find(DICT))!;
  assert.equal(await ts.store.cases.get(dict.id, other), undefined);
  assert.equal(await ts.store.cases.count(dict.id), 4);
});
