import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AppError } from '../../../src/shared/errors.js';
import { CssyncReader, isCssyncContainer, writeCssyncContainer } from '../../../src/sync/cssync-container.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const LIMITS = { jsonBytes: 1 << 20, itemBytes: 1 << 20 };

/** Yields `bytes` in pieces of `size` bytes (1 = byte by byte). */
async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(bytes: Buffer, size: number, limits = LIMITS) {
  const r = new CssyncReader(pieces(bytes, size), limits);
  const json: Buffer[] = [];
  for await (const p of r.cases()) json.push(p);
  const items: { signature: string; caseId?: string; raw: Record<string, unknown>; content: Buffer }[] = [];
  for (let it = await r.nextItem(); it; it = await r.nextItem()) {
    const parts: Buffer[] = [];
    for await (const p of it.content) parts.push(p);
    items.push({ ...it.header, content: Buffer.concat(parts) });
  }
  return { json: Buffer.concat(json).toString('utf8'), items };
}

async function failure(bytes: Buffer, size = 7, limits = LIMITS): Promise<AppError> {
  try {
    await readAll(bytes, size, limits);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail('the container was read');
}

const image = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256));
const audio = Buffer.from('RIFF....WAVEfmt not really audio', 'latin1');
const cases = JSON.stringify([{ id: '0b7e5c0e-5d3a-4c1f-9a52-1f0d6b2a9e11', 'level-1': '{"id":{}}' }]);
const header = (content: Buffer, extra: Record<string, unknown> = {}) => ({
  caseid: '0b7e5c0e-5d3a-4c1f-9a52-1f0d6b2a9e11',
  signature: md5(content),
  ...extra,
});

test('cssync: what the writer writes the reader reads back, whatever the chunking', async () => {
  const body = Buffer.concat([
    ...writeCssyncContainer(cases, [
      { header: header(image, { length: image.length, metadata: { filename: 'a.jpg' } }), content: image },
      { header: { uuid: 'ffffffff-0000-4000-8000-000000000000', signature: md5(audio).toUpperCase() }, content: audio },
      { header: header(Buffer.alloc(0)), content: Buffer.alloc(0) },
    ]),
  ]);
  assert.equal(body.subarray(0, 6).toString('latin1'), 'cssync');
  assert.equal(body.readInt32LE(6), 1);
  assert.equal(body.readInt32LE(10), Buffer.byteLength(cases));
  assert.ok(isCssyncContainer(body));
  assert.ok(!isCssyncContainer(Buffer.from('[{"id":')));
  for (const size of [1, 3, 4096, body.length]) {
    const got = await readAll(body, size);
    assert.equal(got.json, cases);
    assert.equal(got.items.length, 3);
    assert.deepEqual(got.items[0]!.content, image);
    assert.equal(got.items[0]!.signature, md5(image));
    assert.equal(got.items[0]!.caseId, '0b7e5c0e-5d3a-4c1f-9a52-1f0d6b2a9e11');
    assert.deepEqual(got.items[0]!.raw.metadata, { filename: 'a.jpg' });
    // 8.1 names the case `uuid`; signatures are compared in lower case.
    assert.equal(got.items[1]!.caseId, 'ffffffff-0000-4000-8000-000000000000');
    assert.equal(got.items[1]!.signature, md5(audio));
    assert.deepEqual(got.items[1]!.content, audio);
    assert.equal(got.items[2]!.content.length, 0);
  }
});

test('cssync: a container with no item is the case JSON alone', async () => {
  const got = await readAll(Buffer.concat([...writeCssyncContainer('[]', [])]), 2);
  assert.equal(got.json, '[]');
  assert.equal(got.items.length, 0);
});

test('cssync: truncated anywhere is SYNC_CONTAINER_INVALID with the offset', async () => {
  const body = Buffer.concat([...writeCssyncContainer(cases, [{ header: header(image), content: image }])]);
  // Every cut except the whole body fails; none reads past what was given.
  for (const cut of [0, 3, 6, 9, 12, 14, 20, 14 + Buffer.byteLength(cases) + 2, body.length - image.length - 2, body.length - 1]) {
    const err = await failure(body.subarray(0, cut), 5);
    assert.equal(err.code, 'SYNC_CONTAINER_INVALID', `cut at ${cut}: ${err.message}`);
    assert.equal(typeof err.details.offset, 'number');
    assert.ok((err.details.offset as number) <= cut, `cut at ${cut}: offset ${String(err.details.offset)}`);
  }
});

test('cssync: lying lengths are refused before what they announce is read', async () => {
  const good = Buffer.concat([...writeCssyncContainer(cases, [{ header: header(image), content: image }])]);
  // A case JSON length past the end of the body.
  const longJson = Buffer.from(good);
  longJson.writeInt32LE(good.length * 2, 10);
  assert.equal((await failure(longJson)).code, 'SYNC_CONTAINER_INVALID');
  // A negative length.
  const negative = Buffer.from(good);
  negative.writeInt32LE(-5, 10);
  const neg = await failure(negative);
  assert.equal(neg.code, 'SYNC_CONTAINER_INVALID');
  assert.match(neg.message, /negative length \(-5\)/);
  assert.equal(neg.details.offset, 10);
  // A case JSON length over the limit: 413 from the length alone.
  const big = await failure(good, 7, { jsonBytes: 10, itemBytes: 1 << 20 });
  assert.equal(big.code, 'PAYLOAD_TOO_LARGE');
  assert.equal(big.details.limit, 10);
  // An item's content over the item limit.
  const item = await failure(good, 7, { jsonBytes: 1 << 20, itemBytes: image.length - 1 });
  assert.equal(item.code, 'PAYLOAD_TOO_LARGE');
  assert.equal(item.details.signature, md5(image));
  // An item content length longer than what follows.
  const headerStart = 14 + Buffer.byteLength(cases);
  const hn = good.readInt32LE(headerStart);
  const longItem = Buffer.from(good);
  longItem.writeInt32LE(image.length + 10, headerStart + 4 + hn);
  const li = await failure(longItem);
  assert.equal(li.code, 'SYNC_CONTAINER_INVALID');
  assert.match(li.message, /ends 10 bytes before the end of binary item/);
  // A header length that is absurd.
  const hugeHeader = Buffer.from(good);
  hugeHeader.writeInt32LE(1 << 30, headerStart);
  assert.match((await failure(hugeHeader)).message, /header of 1073741824 bytes/);
  // Another version, another magic.
  const v2 = Buffer.from(good);
  v2.writeInt32LE(2, 6);
  assert.match((await failure(v2)).message, /version 2/);
  assert.match((await failure(Buffer.from('cssynx\x01\x00\x00\x00', 'latin1'))).message, /does not start with "cssync"/);
});

test('cssync: a header must be a JSON object naming an md5 signature', async () => {
  const build = (h: Buffer) => {
    const head = Buffer.concat([...writeCssyncContainer('[]', [])]);
    const n = Buffer.alloc(4);
    n.writeInt32LE(h.length);
    return Buffer.concat([head, n, h, Buffer.from([0, 0, 0, 0])]);
  };
  assert.match((await failure(build(Buffer.from('{not json')))).message, /not JSON/);
  assert.match((await failure(build(Buffer.from('[1]')))).message, /not an object/);
  assert.match((await failure(build(Buffer.from('{"signature":"abc"}')))).message, /without an md5 signature/);
  const ok = await readAll(build(Buffer.from(`{"signature":"${md5(Buffer.alloc(0))}"}`)), 3);
  assert.equal(ok.items[0]!.caseId, undefined);
});
