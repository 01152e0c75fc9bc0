/** The memory budget of sync uploads in flight (docs/limits.md#memory-of-uploads-in-flight): the budget itself, the charge, the setting. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { MemoryBudget } from '../../../src/shared/memory-budget.js';
import { AppError } from '../../../src/shared/errors.js';
import { readUploadBody, type UploadBodyLimits } from '../../../src/core/sync/upload-body.js';
import { checkUploadMemory, DEFAULT_LIMITS, limitsSettings, UPLOAD_MEMORY_FACTOR } from '../../../src/core/home/limits.js';
import { writeCssyncContainer } from '../../../src/sync/cssync-container.js';

test('a budget: reservations up to its size exactly, none past it, all given back by release, once', () => {
  const budget = new MemoryBudget(100);
  const a = budget.lease();
  const b = budget.lease();
  assert.equal(a.reserve(60), true);
  assert.equal(b.reserve(40), true);
  assert.equal(budget.held, 100);
  // One byte past the size is refused and takes nothing, from either lease.
  assert.equal(b.reserve(1), false);
  assert.equal(a.reserve(1), false);
  assert.equal(budget.held, 100);
  assert.equal(a.held, 60);
  assert.equal(b.held, 40);
  // A refused lease keeps what it holds until it is released.
  a.release();
  assert.equal(budget.held, 40);
  assert.equal(a.held, 0);
  a.release();
  assert.equal(budget.held, 40, 'a second release gives nothing back twice');
  assert.equal(b.reserve(60), true);
  assert.equal(budget.held, 100);
  b.release();
  assert.equal(budget.held, 0);
  // Nothing is a reservation that always fits, even in a full budget.
  const c = budget.lease();
  assert.equal(c.reserve(100), true);
  assert.equal(budget.lease().reserve(0), true);
  c.release();
  assert.equal(budget.held, 0);
});

test('a budget refuses what is not a whole number of bytes, and a lease used after its release', () => {
  assert.throws(() => new MemoryBudget(-1), RangeError);
  assert.throws(() => new MemoryBudget(1.5), RangeError);
  const budget = new MemoryBudget(10);
  const lease = budget.lease();
  assert.throws(() => lease.reserve(-1), RangeError);
  assert.throws(() => lease.reserve(Number.NaN), RangeError);
  assert.equal(budget.held, 0);
  lease.release();
  assert.throws(() => lease.reserve(1), /after its release/);
  assert.equal(budget.held, 0);
});

const LIMITS: UploadBodyLimits = { requestBytes: 1024 * 1024, jsonDepth: 64, binaryItemBytes: 1024 * 1024, uploadMemoryBytes: 12345 };

async function* chunks(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function read(body: Buffer, budget: MemoryBudget, size = 100): Promise<{ cases: unknown[]; held: number }> {
  const lease = budget.lease();
  const cases: unknown[] = [];
  const sink = async (_h: unknown, content: AsyncIterable<Buffer>) => {
    for await (const _ of content);
  };
  for await (const batch of readUploadBody(Readable.from(chunks(body, size)), LIMITS, sink, lease)) cases.push(...batch);
  return { cases, held: lease.held };
}

const JSON_BODY = Buffer.from(JSON.stringify([{ id: 'a', notes: 'n'.repeat(500) }, { id: 'b' }]));

test('an upload is charged UPLOAD_MEMORY_FACTOR times its inflated JSON, plain or compressed; a cssync container for its case JSON only', async () => {
  const big = new MemoryBudget(1e9);
  const plain = await read(JSON_BODY, big);
  assert.equal(plain.cases.length, 2);
  assert.equal(plain.held, UPLOAD_MEMORY_FACTOR * JSON_BODY.length);
  // The compressed bytes are not what is held: the inflated ones are.
  assert.equal((await read(deflateSync(JSON_BODY), big)).held, UPLOAD_MEMORY_FACTOR * JSON_BODY.length);
  const item = { header: { caseid: 'a', signature: 'd41d8cd98f00b204e9800998ecf8427e' }, content: Buffer.alloc(0) };
  const container = Buffer.concat([...writeCssyncContainer(JSON_BODY, [item])]);
  assert.equal((await read(container, big)).held, UPLOAD_MEMORY_FACTOR * JSON_BODY.length);
  assert.equal(big.held, 3 * UPLOAD_MEMORY_FACTOR * JSON_BODY.length, 'the leases hold it until released');
});

test('an upload past the budget is 503 SERVER_BUSY with retry_after, before any of it is parsed', async () => {
  // Room for all but the last byte of the body.
  const budget = new MemoryBudget(UPLOAD_MEMORY_FACTOR * JSON_BODY.length - 1);
  const lease = budget.lease();
  let batches = 0;
  await assert.rejects(
    (async () => {
      for await (const _ of readUploadBody(Readable.from(chunks(JSON_BODY, 100)), LIMITS, undefined, lease)) batches += 1;
    })(),
    (e: unknown) =>
      e instanceof AppError &&
      e.code === 'SERVER_BUSY' &&
      e.http === 503 &&
      e.details.retry_after === 5 &&
      /limits\.upload_memory_bytes, 12345 bytes\); nothing of this upload was stored: send it again in 5 s$/.test(e.message),
  );
  assert.equal(batches, 0);
  // What was reserved before the refusal stays with the lease until its owner releases it.
  assert.equal(lease.held, UPLOAD_MEMORY_FACTOR * (JSON_BODY.length - (JSON_BODY.length % 100 || 100)));
  lease.release();
  assert.equal(budget.held, 0);
  // The request limit is checked first: a body over it is 413 whatever the budget holds.
  const small = { ...LIMITS, requestBytes: 50 };
  await assert.rejects(
    (async () => {
      for await (const _ of readUploadBody(Readable.from(chunks(JSON_BODY, 100)), small, undefined, new MemoryBudget(0).lease()));
    })(),
    (e: unknown) => e instanceof AppError && e.code === 'PAYLOAD_TOO_LARGE',
  );
});

test('the budget setting: limits.upload_memory_bytes and SDS_LIMIT_UPLOAD_MEMORY_BYTES; it must hold one upload at the request limit', () => {
  assert.equal(DEFAULT_LIMITS.uploadMemoryBytes, 1024 * 1024 * 1024);
  assert.equal(limitsSettings({ limits: { upload_memory_bytes: 2 ** 31 } }, {}).uploadMemoryBytes, 2 ** 31);
  assert.equal(
    limitsSettings({ limits: { upload_memory_bytes: 2 ** 31 } }, { SDS_LIMIT_UPLOAD_MEMORY_BYTES: '536870912' }).uploadMemoryBytes,
    536870912,
  );
  assert.throws(
    () => limitsSettings({}, { SDS_LIMIT_UPLOAD_MEMORY_BYTES: '1000' }),
    (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && /SDS_LIMIT_UPLOAD_MEMORY_BYTES/.test(e.message),
  );
  checkUploadMemory(DEFAULT_LIMITS);
  // Exactly one upload at the request limit fits; a byte less cannot hold it.
  const limits = { ...DEFAULT_LIMITS, requestBytes: 1024 * 1024, uploadMemoryBytes: UPLOAD_MEMORY_FACTOR * 1024 * 1024 };
  checkUploadMemory(limits);
  assert.throws(
    () => checkUploadMemory({ ...limits, uploadMemoryBytes: limits.uploadMemoryBytes - 1 }),
    (e: unknown) =>
      e instanceof AppError &&
      e.code === 'CONFIG_INVALID' &&
      e.message ===
        `limits.upload_memory_bytes (${limits.uploadMemoryBytes - 1}) must hold one upload at limits.request_bytes (1048576) held ${UPLOAD_MEMORY_FACTOR} times over, at least ${limits.uploadMemoryBytes}: raise upload_memory_bytes or lower request_bytes`,
  );
});

test('a compressed upload read whole or as a stream: the same cases and charge, the same refusals', async () => {
  const ZLIB = deflateSync(JSON_BODY);
  // Past the budget by a byte: 503, nothing parsed, as for the plain body above.
  const budget = new MemoryBudget(UPLOAD_MEMORY_FACTOR * JSON_BODY.length - 1);
  let batches = 0;
  await assert.rejects(
    (async () => {
      for await (const _ of readUploadBody(Readable.from(chunks(ZLIB, 100)), LIMITS, undefined, budget.lease())) batches += 1;
    })(),
    (e: unknown) => e instanceof AppError && e.code === 'SERVER_BUSY' && e.details.retry_after === 5,
  );
  assert.equal(batches, 0);
  // Over the request limit once inflated: 413, also when the budget has no room at all.
  await assert.rejects(
    (async () => {
      const small = { ...LIMITS, requestBytes: JSON_BODY.length - 1 };
      for await (const _ of readUploadBody(Readable.from(chunks(ZLIB, 100)), small, undefined, new MemoryBudget(0).lease()));
    })(),
    (e: unknown) => e instanceof AppError && e.code === 'PAYLOAD_TOO_LARGE' && e.details.limit === JSON_BODY.length - 1,
  );
  // Exactly at the request limit it is read.
  const exact = { ...LIMITS, requestBytes: JSON_BODY.length };
  const cases: unknown[] = [];
  for await (const b of readUploadBody(Readable.from(chunks(ZLIB, 100)), exact)) cases.push(...b);
  assert.deepEqual(cases, JSON.parse(JSON_BODY.toString()));
  // Cut short or corrupt: the case error of a stream, naming the compression.
  for (const bad of [ZLIB.subarray(0, ZLIB.length - 5), Buffer.concat([ZLIB.subarray(0, 4), Buffer.from('xxxx'), ZLIB.subarray(8)])]) {
    await assert.rejects(
      (async () => {
        for await (const _ of readUploadBody(Readable.from(chunks(bad, 100)), LIMITS));
      })(),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'CASE_INVALID' &&
        /readable past element 0: the compressed body is corrupt; nothing/.test(e.message),
    );
  }
  // Empty once inflated: the same error as an empty plain body.
  await assert.rejects(
    (async () => {
      for await (const _ of readUploadBody(Readable.from([deflateSync(Buffer.alloc(0))]), LIMITS));
    })(),
    (e: unknown) => e instanceof AppError && e.code === 'CASE_INVALID' && /element 0: the body is empty;/.test(e.message),
  );
  // Too deep and corrupt, arriving in small pieces: zlib gives out the deep part before it finds
  // the damage, so the depth is what is refused, as when the body always went as a stream.
  const deepBad = deflateSync(Buffer.from('[' + '['.repeat(100) + ']'.repeat(100) + ']'));
  deepBad[8]! ^= 0xff;
  await assert.rejects(
    (async () => {
      for await (const _ of readUploadBody(Readable.from(chunks(deepBad, 7)), LIMITS));
    })(),
    (e: unknown) => e instanceof AppError && e.code === 'JSON_TOO_DEEP' && e.details.offset === 64,
  );
  // More than a megabyte compressed goes as a stream: the same cases and the same charge.
  const noise = Array.from({ length: 900 }, (_, k) => ({ id: k, text: randomBytes(1500).toString('base64') }));
  const large = Buffer.from(JSON.stringify(noise));
  const compressed = deflateSync(large);
  assert.ok(compressed.length > 1024 * 1024);
  const lease = new MemoryBudget(1e9).lease();
  const got: unknown[] = [];
  for await (const b of readUploadBody(
    Readable.from(chunks(compressed, 65536)),
    { ...LIMITS, requestBytes: large.length },
    undefined,
    lease,
  ))
    got.push(...b);
  assert.deepEqual(got, noise);
  assert.equal(lease.held, UPLOAD_MEMORY_FACTOR * large.length);
});
