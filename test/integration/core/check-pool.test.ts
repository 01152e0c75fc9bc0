import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { DEFAULT_CASE_LIMITS } from '../../../src/cspro/case/case-limits.js';
import { deflateSync } from 'node:zlib';
import { CheckPool, MIN_THREAD_BATCH, MIN_THREAD_BODY_BYTES, THREAD_COPY_FACTOR } from '../../../src/core/sync/check-pool.js';
import { DeferredSmallBody } from '../../../src/core/sync/upload-body.js';
import type { UploadChecks } from '../../../src/core/sync/upload-checker.js';
import { MemoryBudget } from '../../../src/shared/memory-budget.js';
import { UPLOAD_MEMORY_FACTOR } from '../../../src/core/home/index.js';
import { checkUploadCases } from '../../../src/core/sync/check-upload-case.js';
import { fixture } from '../../helpers/temp-home.js';
import { popstanCases } from '../../helpers/sync-client.js';

// The upload check threads of `sds serve` (docs/decisions.md, "Upload checks in threads"): real
// worker threads, compared with the checks of one thread.

const popstan = () => parseDictionary(readFileSync(fixture('popstan-census.json.dcf')));

/** What checking on the calling thread throws for `values`, as { code, message, details }. */
function inlineRefusal(values: unknown[], model: ReturnType<typeof popstan>, offset = 0) {
  try {
    checkUploadCases(values, model, offset, DEFAULT_CASE_LIMITS);
  } catch (err) {
    const e = err as { code: string; message: string; details: unknown };
    return { code: e.code, message: e.message, details: e.details };
  }
  assert.fail('the inline check took every case');
}

/**
 * The checks of an upload, with another upload in flight so that they go to the threads, and the
 * pool (closed after the test).
 */
function crowded(
  t: { after(fn: () => Promise<void>): void },
  size: number,
  limits?: ConstructorParameters<typeof CheckPool>[1],
): { pool: CheckPool; checks: UploadChecks } {
  const pool = new CheckPool(size, limits);
  t.after(() => pool.close());
  const other = pool.begin();
  const checks = pool.begin();
  t.after(async () => [other, checks].forEach((c) => c.end()));
  return { pool, checks };
}

test('check pool: beside another upload, threads check the cases and give what one thread gives, in body order', async (t) => {
  const model = popstan();
  const { pool, checks } = crowded(t, 2);
  const values = popstanCases(301, 'tablet-a');
  const writes = await checks.check(values, model, 40, DEFAULT_CASE_LIMITS);
  assert.deepEqual(writes, checkUploadCases(values, model, 40, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 2, 'one part per thread');
  assert.deepEqual(
    writes.map((w) => w.guid),
    values.map((v) => v.id),
  );
});

test('check pool: a lone upload, and a batch of fewer than MIN_THREAD_BATCH cases, are checked on the calling thread', async (t) => {
  const model = popstan();
  const pool = new CheckPool(2);
  t.after(() => pool.close());
  const values = popstanCases(200, 'tablet-a');
  const checks = pool.begin();
  assert.equal(pool.inFlight, 1);
  assert.deepEqual(await checks.check(values, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, model, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 0, 'the lone upload stayed on its thread');
  const other = pool.begin();
  const few = values.slice(0, MIN_THREAD_BATCH - 1);
  assert.deepEqual(await checks.check(few, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(few, model, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 0, 'too few cases to send');
  await checks.check(values.slice(0, MIN_THREAD_BATCH), model, 0, DEFAULT_CASE_LIMITS);
  assert.equal(pool.partsChecked, 1, 'MIN_THREAD_BATCH cases go to one thread');
  other.end();
  checks.end();
  checks.end();
  assert.equal(pool.inFlight, 0, 'an end said twice counts once');
});

test('check pool: a batch sent to the threads is charged its copies; one the budget cannot take is checked on the calling thread', async (t) => {
  const model = popstan();
  const pool = new CheckPool(1);
  t.after(() => pool.close());
  const budget = new MemoryBudget(700_000);
  const other = pool.begin();
  t.after(async () => other.end());
  const lease = budget.lease();
  const checks = pool.begin(lease);
  const values = popstanCases(40, 'tablet-a');
  // As the body reader charges it: UPLOAD_MEMORY_FACTOR bytes per byte of JSON read.
  assert.ok(lease.reserve(10_000 * UPLOAD_MEMORY_FACTOR));
  await checks.check(values, model, 0, DEFAULT_CASE_LIMITS);
  assert.equal(pool.partsChecked, 1);
  assert.equal(lease.held, 10_000 * (UPLOAD_MEMORY_FACTOR + THREAD_COPY_FACTOR), 'the copies of 10,000 bytes of JSON charged');
  // A batch with no more JSON read is charged nothing more.
  await checks.check(values, model, 40, DEFAULT_CASE_LIMITS);
  assert.equal(pool.partsChecked, 2);
  assert.equal(lease.held, 10_000 * (UPLOAD_MEMORY_FACTOR + THREAD_COPY_FACTOR));
  // The next 50,000 bytes fit the budget, their copies do not: checked here, charged nothing.
  assert.ok(lease.reserve(50_000 * UPLOAD_MEMORY_FACTOR));
  const writes = await checks.check(values, model, 80, DEFAULT_CASE_LIMITS);
  assert.deepEqual(writes, checkUploadCases(values, model, 80, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 2, 'not sent');
  assert.equal(lease.held, 60_000 * UPLOAD_MEMORY_FACTOR + 10_000 * THREAD_COPY_FACTOR);
  checks.end();
  lease.release();
  assert.equal(budget.held, 0);
});

test('check pool: the refusal is that of the first bad case in the body, word for word, whichever thread found it', async (t) => {
  const model = popstan();
  const { pool, checks } = crowded(t, 3);
  const values: unknown[] = popstanCases(120, 'tablet-a');
  // Bad cases in the second and third parts (of 40 each), none in the first.
  values[95] = { ...(values[95] as object), clock: 'not a clock' };
  values[50] = { id: 'not-a-guid', caseids: 'x', clock: [] };
  const refusal = await checks.check(values, model, 7, DEFAULT_CASE_LIMITS).then(
    () => assert.fail('a bad case was taken'),
    (e: { code: string; message: string; details: unknown }) => ({ code: e.code, message: e.message, details: e.details }),
  );
  assert.deepEqual(refusal, inlineRefusal(values, model, 7));
  assert.equal((refusal.details as { index: number }).index, 57, 'named by its index in the body');
  assert.match(refusal.message, /^case 57\b.*nothing of this upload was stored$/);
  assert.equal(pool.partsChecked, 3, 'checked in three threads');
  // Each thread went on to answer the next upload: nothing was left half done.
  const good = popstanCases(120, 'tablet-b');
  assert.deepEqual(await checks.check(good, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(good, model, 0, DEFAULT_CASE_LIMITS));
});

test('check pool: each dictionary is checked against its own model, sent once to a thread', async (t) => {
  const { pool, checks } = crowded(t, 1);
  const census = popstan();
  const capi = parseDictionary(readFileSync(fixture('simple-capi.dcf')));
  const values = popstanCases(64, 'tablet-a');
  assert.deepEqual(await checks.check(values, census, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  // The same cases against another dictionary: the thread checks them against that one (which
  // keeps none of the census's records), not against the census it already holds.
  const asCapi = await checks.check(values, capi, 0, DEFAULT_CASE_LIMITS);
  assert.deepEqual(asCapi, checkUploadCases(values, capi, 0, DEFAULT_CASE_LIMITS));
  assert.notDeepEqual(asCapi, checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  // And the first again, which the thread still holds.
  assert.deepEqual(await checks.check(values, census, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 3);
});

test('check pool: a thread that runs out of memory fails its upload with INTERNAL, and a new thread takes the next', async (t) => {
  const model = popstan();
  // A heap too small for a batch of this size: the thread dies in the middle of it.
  const { checks } = crowded(t, 1, { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 });
  const big = popstanCases(60_000, 'tablet-a');
  await assert.rejects(checks.check(big, model, 0, DEFAULT_CASE_LIMITS), (e: { code: string; message: string }) => {
    assert.equal(e.code, 'INTERNAL');
    assert.match(e.message, /check thread stopped .*nothing of this upload was stored/);
    return true;
  });
  const small = popstanCases(40, 'tablet-b');
  assert.deepEqual(await checks.check(small, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(small, model, 0, DEFAULT_CASE_LIMITS));
});

/** A small zlib body as the body reader hands it over unread. */
function deferred(json: string | Buffer, maxJsonBytes = 4 * 1024 * 1024, depth = DEFAULT_CASE_LIMITS.jsonDepth): DeferredSmallBody {
  return new DeferredSmallBody(deflateSync(json), maxJsonBytes, depth);
}

test('check pool: a small zlib body is read and checked whole in a thread, charged as the main thread charges it', async (t) => {
  const model = popstan();
  const pool = new CheckPool(2);
  t.after(() => pool.close());
  const other = pool.begin();
  t.after(async () => other.end());
  const lease = new MemoryBudget(100_000_000).lease();
  const checks = pool.begin(lease);
  const values = popstanCases(90, 'tablet-a');
  const json = JSON.stringify(values);
  // With a byte-order mark, as some clients write it.
  const writes = await checks.checkBody(
    deferred(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)])),
    model,
    DEFAULT_CASE_LIMITS,
  );
  assert.deepEqual(writes, checkUploadCases(values, model, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 1);
  assert.equal(lease.held, (Buffer.byteLength(json) + 3) * UPLOAD_MEMORY_FACTOR);
  checks.end();
});

test('check pool: a body the thread cannot read cleanly is left for the main thread to read (and refuse) as any body', async (t) => {
  const model = popstan();
  const { pool, checks } = crowded(t, 1);
  const values = popstanCases(90, 'tablet-a');
  const json = JSON.stringify(values);
  const cut = deflateSync(json).subarray(0, 3000);
  const unread = [
    new DeferredSmallBody(Buffer.concat([cut, Buffer.alloc(2000, 7)]), 4 * 1024 * 1024, 32), // corrupt
    deferred(json, 1000), // inflates past its one-call limit
    deferred(`[${'['.repeat(40)}${']'.repeat(40)},${json.slice(1)}`, undefined, 32), // too deep
    deferred(`${json.slice(0, -1)},{"id": }]`), // not JSON
    deferred(JSON.stringify({ cases: values })), // not an array
  ];
  for (const body of unread) assert.equal(await checks.checkBody(body, model, DEFAULT_CASE_LIMITS), undefined);
  assert.equal(pool.partsChecked, unread.length, 'each was tried in the thread');
  // A lone upload's body, and a body under MIN_THREAD_BODY_BYTES, are not even sent.
  const lone = new CheckPool(1);
  t.after(() => lone.close());
  const only = lone.begin();
  assert.equal(await only.checkBody(deferred(json), model, DEFAULT_CASE_LIMITS), undefined);
  const tiny = deferred(JSON.stringify(values.slice(0, 1)));
  assert.ok(tiny.bytes.length < MIN_THREAD_BODY_BYTES);
  assert.equal(await checks.checkBody(tiny, model, DEFAULT_CASE_LIMITS), undefined);
  assert.equal(lone.partsChecked, 0);
  assert.equal(pool.partsChecked, unread.length);
  only.end();
});

test('check pool: a bad case of a body read in a thread is refused word for word; a body the budget cannot take is left unread', async (t) => {
  const model = popstan();
  const pool = new CheckPool(1);
  t.after(() => pool.close());
  const other = pool.begin();
  t.after(async () => other.end());
  const values: unknown[] = popstanCases(90, 'tablet-a');
  values[70] = { ...(values[70] as object), clock: 'not a clock' };
  const json = JSON.stringify(values);
  const lease = new MemoryBudget(100_000_000).lease();
  const checks = pool.begin(lease);
  const refusal = await checks.checkBody(deferred(json), model, DEFAULT_CASE_LIMITS).then(
    () => assert.fail('a bad case was taken'),
    (e: { code: string; message: string; details: unknown }) => ({ code: e.code, message: e.message, details: e.details }),
  );
  assert.deepEqual(refusal, inlineRefusal(values, model));
  checks.end();

  const small = new MemoryBudget(Buffer.byteLength(json) * UPLOAD_MEMORY_FACTOR - 1).lease();
  const tight = pool.begin(small);
  assert.equal(await tight.checkBody(deferred(json), model, DEFAULT_CASE_LIMITS), undefined);
  assert.equal(small.held, 0, 'nothing charged');
  tight.end();
});
