import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { checkUploadedCase } from '../../../src/core/sync-upload/check-case.js';
import { checkUploadedCases } from '../../../src/core/sync-upload/check-cases.js';
import { AppError } from '../../../src/shared/errors.js';
import { fixture } from '../../helpers/temp-home.js';
import { popstanCases } from '../../helpers/sync-client.js';

// Uploads of several hundred cases: batches go to the checking worker thread and stay on the
// request's thread, so these exercise both and the order in which their results are put together.

const model = parseDictionary(readFileSync(fixture('popstan-census.json.dcf')));

async function* items(values: unknown[], brokenAfter?: number): AsyncGenerator<unknown> {
  for (const [k, v] of values.entries()) {
    if (k === brokenAfter) throw new AppError('CASE_INVALID', `the body broke at element ${k}`, { index: k });
    yield v;
  }
}

/** The reference: every case checked one after another on this thread. */
function oneByOne(values: unknown[]) {
  return values.map((v, k) => checkUploadedCase(v, model, k));
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail('the upload was not refused');
}

test('upload check: 950 cases come back in body order, encoded exactly as one-by-one checking does', async () => {
  const cases = popstanCases(950, 'tablet-a');
  const writes = await checkUploadedCases(items(cases), model);
  assert.deepEqual(writes, oneByOne(cases));
});

test('upload check: the first malformed case in body order is named, whichever thread checked it', async () => {
  for (const bad of [[5], [150, 320], [320, 150 + 500], [420, 700], [949]]) {
    const cases: unknown[] = popstanCases(950, 'tablet-a');
    for (const k of bad) cases[k] = { ...(cases[k] as object), clock: 'not a clock' };
    const first = Math.min(...bad);
    const err = await refusal(checkUploadedCases(items(cases), model));
    assert.equal(err.code, 'CASE_INVALID');
    assert.equal(err.details.index, first);
    let expected: AppError | undefined;
    try {
      checkUploadedCase(cases[first], model, first);
    } catch (e) {
      expected = e as AppError;
    }
    assert.equal(err.message, expected!.message);
    assert.deepEqual(err.details, expected!.details);
  }
});

test('upload check: a malformed case before the point where the body breaks wins; without one the break is reported', async () => {
  const cases: unknown[] = popstanCases(600, 'tablet-a');
  cases[430] = { ...(cases[430] as object), id: 'not-a-guid' };
  const err = await refusal(checkUploadedCases(items(cases, 450), model));
  assert.equal(err.details.index, 430);
  assert.match(err.message, /^case 430: id must be a GUID/);
  const broken = await refusal(checkUploadedCases(items(popstanCases(600, 'tablet-a'), 450), model));
  assert.equal(broken.message, 'the body broke at element 450');
});
