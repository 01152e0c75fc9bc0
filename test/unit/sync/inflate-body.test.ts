/** Compressed dictionary, file and package uploads (docs/sync.md#compressed-bodies): zlib or gzip, by the bytes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import { inflateLabelled, inflateWhole } from '../../../src/core/sync/inflate-body.js';
import { AppError } from '../../../src/shared/errors.js';

const TEXT = Buffer.from('{"name":"DICT"}'.repeat(200));

async function collect(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of it) parts.push(p);
  return Buffer.concat(parts);
}

async function* chunks(b: Buffer, size = 7): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

test('a whole body: zlib and gzip inflated, plain text kept, the limit counted on the inflated bytes', () => {
  assert.ok(inflateWhole(deflateSync(TEXT, { level: 9 }), 1e6, 'the dictionary').equals(TEXT));
  assert.ok(inflateWhole(gzipSync(TEXT), 1e6, 'the dictionary').equals(TEXT));
  assert.ok(inflateWhole(TEXT, 10, 'the dictionary').equals(TEXT));
  assert.throws(
    () => inflateWhole(deflateSync(TEXT), 100, 'the dictionary'),
    (e: unknown) => e instanceof AppError && e.code === 'PAYLOAD_TOO_LARGE',
  );
  const broken = deflateSync(TEXT).subarray(0, 20);
  assert.throws(
    () => inflateWhole(broken, 1e6, 'the dictionary'),
    (e: unknown) => e instanceof AppError && e.code === 'USAGE' && /the dictionary is labelled compressed/.test(e.message),
  );
});

test('a streamed body: inflated only under a deflate or gzip label, zlib or gzip as the bytes say', async () => {
  assert.ok((await collect(inflateLabelled(chunks(deflateSync(TEXT)), 'deflate', 'f'))).equals(TEXT));
  // 8.0 labels zlib gzip; a real gzip body under deflate is read too.
  assert.ok((await collect(inflateLabelled(chunks(deflateSync(TEXT)), 'gzip', 'f'))).equals(TEXT));
  assert.ok((await collect(inflateLabelled(chunks(gzipSync(TEXT)), 'deflate', 'f'))).equals(TEXT));
  // Without the label, bytes that look compressed are the file's own.
  const z = deflateSync(TEXT);
  assert.ok((await collect(inflateLabelled(chunks(z), undefined, 'f'))).equals(z));
  // Labelled but plain: kept as it is.
  assert.ok((await collect(inflateLabelled(chunks(TEXT), 'deflate', 'f'))).equals(TEXT));
  assert.ok((await collect(inflateLabelled(chunks(Buffer.alloc(0)), 'deflate', 'f'))).equals(Buffer.alloc(0)));
  await assert.rejects(
    collect(inflateLabelled(chunks(z.subarray(0, 30)), 'deflate', 'photo.jpg')),
    (e: unknown) => e instanceof AppError && e.code === 'USAGE' && e.message.startsWith('photo.jpg is labelled compressed'),
  );
});
