import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { startTestServer, type UserKey } from '../../helpers/http-server.js';
import { pendingUploads, storedBytes, storedNames } from '../../helpers/stored-files.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Issue 16, point 5: files replaced while they are read. Two writers PUT two versions of
 * different sizes over one file while readers GET it through the sync file route and the media
 * route; every reply must be one version whole, with headers describing those very bytes.
 */
test('concurrent PUT/GET: every GET is one version whole, its Content-Length and hashes match it (sync and media routes)', async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const versions = [randomBytes(150 * 1024), randomBytes(600 * 1024 + 17)];
  const byMd5 = new Map(versions.map((v, i) => [md5(v), i]));
  const SYNC = '/api/files/race/data.bin/content';
  const MEDIA = '/api/files/media/race/data.bin/content';
  const put = async (user: UserKey, body: Buffer) => {
    const r = await s.call(user, SYNC, { method: 'PUT', headers: { 'content-md5': md5(body) }, body });
    assert.equal(r.status, 200, await r.text());
    await r.arrayBuffer().catch(() => undefined);
  };
  await put('api', versions[0]!);
  // One login per account before the loops: concurrent logins from one address are charged by the login throttle.
  for (const u of ['admin', 'standard'] as const) assert.equal((await s.call(u, '/api/server')).status, 200);

  const problems: string[] = [];
  const seen = { sync: [0, 0], media: [0, 0] };
  const writer = async (user: UserKey, first: number) => {
    for (let i = 0; i < 50; i++) await put(user, versions[(first + i) % 2]!);
  };
  const reader = async (route: 'sync' | 'media') => {
    for (let i = 0; i < 100; i++) {
      let body: Buffer;
      let r: Response;
      try {
        r = await s.call('standard', route === 'sync' ? SYNC : MEDIA);
        body = Buffer.from(await r.arrayBuffer());
      } catch (err) {
        problems.push(`${route}: the body was cut: ${(err as Error).message}`);
        continue;
      }
      const which = byMd5.get(md5(body));
      if (r.status !== 200 || which === undefined) {
        problems.push(`${route}: status ${r.status}, ${body.length} bytes that are neither version`);
        continue;
      }
      seen[route][which]!++;
      if (r.headers.get('content-length') !== String(body.length))
        problems.push(`${route}: Content-Length ${r.headers.get('content-length')} for ${body.length} bytes`);
      if (route === 'sync') {
        if (r.headers.get('content-md5') !== md5(body) || r.headers.get('etag') !== md5(body))
          problems.push(`sync: Content-MD5/ETag of another version`);
      } else {
        if (r.headers.get('etag') !== `"${sha256(body)}"`) problems.push('media: ETag of another version');
        if (r.headers.get('content-type') !== 'application/octet-stream')
          problems.push(`media: content type ${r.headers.get('content-type')}`);
      }
      if (r.headers.get('x-content-type-options') !== 'nosniff') problems.push(`${route}: no nosniff`);
    }
  };
  await Promise.all([
    writer('api', 1),
    writer('admin', 0),
    ...[0, 1, 2, 3].map(() => reader('sync')),
    ...[0, 1, 2, 3].map(() => reader('media')),
  ]);
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} bad replies`);
  const reads = (x: number[]) => x[0]! + x[1]!;
  assert.equal(reads(seen.sync) + reads(seen.media), 800);
  assert.ok(
    seen.sync[0]! + seen.media[0]! > 0 && seen.sync[1]! + seen.media[1]! > 0,
    `both versions were read while being replaced: ${JSON.stringify(seen)}`,
  );

  // Afterwards: the file is one version whole, its metadata describes it, no temporary file is left.
  assert.deepEqual(await storedNames(s.store, 'media', 'race'), ['data.bin']);
  assert.equal(await pendingUploads(s.store), 0, 'no temporary file left');
  const onDisk = (await storedBytes(s.store, 'media', 'race/data.bin'))!;
  assert.ok(byMd5.has(md5(onDisk)));
  const row = (await s.store.files.find('race/data.bin'))!;
  assert.deepEqual([row.size, row.sha256], [onDisk.length, sha256(onDisk)], 'the metadata row is that of the version in place');
});
