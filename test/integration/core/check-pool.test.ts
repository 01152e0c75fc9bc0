import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { DEFAULT_CASE_LIMITS } from '../../../src/cspro/case/case-limits.js';
import { CheckPool, MIN_THREAD_BATCH } from '../../../src/core/sync/check-pool.js';
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

/** A pool with two uploads in flight (the test's own and another), so that checks go to the threads. */
function crowdedPool(
  t: { after(fn: () => Promise<void>): void },
  size: number,
  limits?: ConstructorParameters<typeof CheckPool>[1],
): CheckPool {
  const pool = new CheckPool(size, limits);
  t.after(() => pool.close());
  const ended = [pool.begin(), pool.begin()];
  t.after(async () => ended.forEach((end) => end()));
  return pool;
}

test('check pool: beside another upload, threads check the cases and give what one thread gives, in body order', async (t) => {
  const model = popstan();
  const pool = crowdedPool(t, 2);
  const values = popstanCases(301, 'tablet-a');
  const writes = await pool.check(values, model, 40, DEFAULT_CASE_LIMITS);
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
  const ended = pool.begin();
  assert.equal(pool.inFlight, 1);
  assert.deepEqual(await pool.check(values, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, model, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 0, 'the lone upload stayed on its thread');
  const other = pool.begin();
  const few = values.slice(0, MIN_THREAD_BATCH - 1);
  assert.deepEqual(await pool.check(few, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(few, model, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 0, 'too few cases to send');
  await pool.check(values.slice(0, MIN_THREAD_BATCH), model, 0, DEFAULT_CASE_LIMITS);
  assert.equal(pool.partsChecked, 1, 'MIN_THREAD_BATCH cases go to one thread');
  other();
  ended();
  ended();
  assert.equal(pool.inFlight, 0, 'an end said twice counts once');
});

test('check pool: the refusal is that of the first bad case in the body, word for word, whichever thread found it', async (t) => {
  const model = popstan();
  const pool = crowdedPool(t, 3);
  const values: unknown[] = popstanCases(120, 'tablet-a');
  // Bad cases in the second and third parts (of 40 each), none in the first.
  values[95] = { ...(values[95] as object), clock: 'not a clock' };
  values[50] = { id: 'not-a-guid', caseids: 'x', clock: [] };
  const refusal = await pool.check(values, model, 7, DEFAULT_CASE_LIMITS).then(
    () => assert.fail('a bad case was taken'),
    (e: { code: string; message: string; details: unknown }) => ({ code: e.code, message: e.message, details: e.details }),
  );
  assert.deepEqual(refusal, inlineRefusal(values, model, 7));
  assert.equal((refusal.details as { index: number }).index, 57, 'named by its index in the body');
  assert.match(refusal.message, /^case 57\b.*nothing of this upload was stored$/);
  assert.equal(pool.partsChecked, 3, 'checked in three threads');
  // Each thread went on to answer the next upload: nothing was left half done.
  const good = popstanCases(120, 'tablet-b');
  assert.deepEqual(await pool.check(good, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(good, model, 0, DEFAULT_CASE_LIMITS));
});

test('check pool: each dictionary is checked against its own model, sent once to a thread', async (t) => {
  const pool = crowdedPool(t, 1);
  const census = popstan();
  const capi = parseDictionary(readFileSync(fixture('simple-capi.dcf')));
  const values = popstanCases(64, 'tablet-a');
  assert.deepEqual(await pool.check(values, census, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  // The same cases against another dictionary: the thread checks them against that one (which
  // keeps none of the census's records), not against the census it already holds.
  const asCapi = await pool.check(values, capi, 0, DEFAULT_CASE_LIMITS);
  assert.deepEqual(asCapi, checkUploadCases(values, capi, 0, DEFAULT_CASE_LIMITS));
  assert.notDeepEqual(asCapi, checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  // And the first again, which the thread still holds.
  assert.deepEqual(await pool.check(values, census, 0, DEFAULT_CASE_LIMITS), checkUploadCases(values, census, 0, DEFAULT_CASE_LIMITS));
  assert.equal(pool.partsChecked, 3);
});

test('check pool: a thread that runs out of memory fails its upload with INTERNAL, and a new thread takes the next', async (t) => {
  const model = popstan();
  // A heap too small for a batch of this size: the thread dies in the middle of it.
  const pool = crowdedPool(t, 1, { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 });
  const big = popstanCases(60_000, 'tablet-a');
  await assert.rejects(pool.check(big, model, 0, DEFAULT_CASE_LIMITS), (e: { code: string; message: string }) => {
    assert.equal(e.code, 'INTERNAL');
    assert.match(e.message, /check thread stopped .*nothing of this upload was stored/);
    return true;
  });
  const small = popstanCases(40, 'tablet-b');
  assert.deepEqual(await pool.check(small, model, 0, DEFAULT_CASE_LIMITS), checkUploadCases(small, model, 0, DEFAULT_CASE_LIMITS));
});
