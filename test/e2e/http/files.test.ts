import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { FileErrorBody, FileInfo } from '../../../src/http/schemas/files.js';
import { seedMedia, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { removeByHand } from '../../helpers/stored-files.js';

let s: TestServer;
let bytes: Buffer;
before(async () => {
  s = await startTestServer({ seed: async (store) => void (bytes = await seedMedia(store)) });
});
after(() => s.close());

const NAME = 'photos/house 1.jpg';
const PATH = `/api/files/media/${encodeURIComponent('photos')}/${encodeURIComponent('house 1.jpg')}`;

test('GET /api/files/media/{filename}: JSON metadata, not the content', async () => {
  const r = await s.call('standard', PATH);
  assert.equal(r.status, 200);
  const info = FileInfo.parse(await r.json());
  assert.equal(info.name, NAME);
  assert.equal(info.size, bytes.length);
  assert.equal(info.content_type, 'image/jpeg');
  assert.equal(info.sha256, createHash('sha256').update(bytes).digest('hex'));
});

test('GET /api/files/media/{filename}/content: the bytes with content type, length, ETag, attachment', async () => {
  const r = await s.call('standard', `${PATH}/content`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/jpeg');
  assert.equal(r.headers.get('content-length'), String(bytes.length));
  assert.equal(r.headers.get('etag'), `"${createHash('sha256').update(bytes).digest('hex')}"`);
  assert.equal(r.headers.get('content-disposition'), "attachment; filename*=UTF-8''house%201.jpg");
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes);
});

test('missing files: 404 {error} naming the file, for metadata and content', async () => {
  for (const p of ['/api/files/media/nope.jpg', '/api/files/media/nope.jpg/content', '/api/files/media/a/b/c.pdf/content']) {
    const r = await s.call('standard', p);
    assert.equal(r.status, 404);
    const e = FileErrorBody.parse(await r.json());
    assert.match(e.error, /^file \S+ not found in the media area$/);
    assert.ok(e.error.includes(p.replace('/api/files/media/', '').replace(/\/content$/, '')));
  }
});

test('a registered file missing on disk is a 404 that does not reveal the server path', async () => {
  await seedMedia(s.store);
  await removeByHand(s.store, 'media', 'photos/house 1.jpg');
  const r = await s.call('standard', `${PATH}/content`);
  assert.equal(r.status, 404);
  const e = FileErrorBody.parse(await r.json());
  assert.ok(!e.error.includes(s.store.home.root), e.error);
  await seedMedia(s.store);
});

test('names escaping the media area: 400 PATH_INVALID; no token: 401', async () => {
  for (const p of ['/api/files/media/..%2F..%2Fsds.db', '/api/files/media/.hidden', '/api/files/media/a%5Cb']) {
    const r = await s.call('standard', p);
    assert.equal(r.status, 400, p);
    assert.equal(ErrorBody.parse(await r.json()).error, 'PATH_INVALID');
  }
  const r = await s.call(null, PATH);
  assert.equal(r.status, 401);
  assert.equal(OAuthErrorBody.parse(await r.json()).error, 'invalid_token');
});
