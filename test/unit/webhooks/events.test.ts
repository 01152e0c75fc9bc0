import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffCase } from '../../../src/webhooks/case-diff.js';
import { caseEventKinds } from '../../../src/webhooks/events-from-change.js';
import { deliverySettings, nextRetryAt } from '../../../src/webhooks/settings.js';
import { isoMicros } from '../../../src/webhooks/envelope.js';
import { AppError } from '../../../src/shared/errors.js';

test('diffCase names items by path: records, occurrences from 1, repeating items, id items, lower levels', () => {
  const before = {
    id: { HH: 1 },
    HOUSING: { H01: 2 },
    PERSON: [{ AGE: 30 }, { AGE: 32, LANG: [1, 2] }],
    'level-2': [{ id: { N: 1 }, VISIT: { V1: 'a' } }],
  };
  const after = {
    id: { HH: 2 },
    HOUSING: { H01: 2 },
    PERSON: [{ AGE: 30 }, { AGE: 45, LANG: [1, 3] }, { AGE: 4 }],
    'level-2': [{ id: { N: 1 }, VISIT: { V1: 'b' } }],
  };
  assert.deepEqual(diffCase(JSON.stringify(before), JSON.stringify(after)), {
    'id.HH': { old: 1, new: 2 },
    'level-2[1].VISIT.V1': { old: 'a', new: 'b' },
    'PERSON[2].AGE': { old: 32, new: 45 },
    'PERSON[2].LANG[2]': { old: 2, new: 3 },
    'PERSON[3].AGE': { old: null, new: 4 },
  });
  assert.deepEqual(diffCase('{"id":{"A":1}}', '{"id":{"A":1}}'), {});
  // Occurrence numbers sort as numbers, and a blank becomes null.
  const ten = (n: number) => JSON.stringify({ id: {}, P: Array.from({ length: 10 }, (_, i) => ({ X: i === 9 ? n : 0 })) });
  assert.deepEqual(Object.keys(diffCase(ten(1), ten(2))), ['P[10].X']);
  assert.deepEqual(diffCase('{"R":{"A":"x"}}', '{"R":{"A":""}}'), { 'R.A': { old: 'x', new: null } });
});

test('caseEventKinds: which change gives which event', () => {
  const c = { caseKey: 'k', label: '', data: '{}', notes: '[]', verified: false, deleted: false };
  assert.deepEqual(caseEventKinds(null, c), ['case_uploaded']);
  assert.deepEqual(caseEventKinds(c, { ...c, data: '{"a":1}' }), ['case_modified']);
  assert.deepEqual(caseEventKinds(c, { ...c, verified: true }), ['case_verified']);
  assert.deepEqual(caseEventKinds(c, { ...c, verified: true, data: '{"a":1}' }), ['case_modified', 'case_verified']);
  assert.deepEqual(caseEventKinds(c, { ...c, deleted: true, data: '{"a":1}' }), ['case_deleted']);
  assert.deepEqual(caseEventKinds({ ...c, deleted: true }, c), ['case_modified']);
  assert.deepEqual(caseEventKinds(c, { ...c }), []);
});

test('delivery settings: defaults of the spec, environment overrides, a lease shorter than an attempt refused', () => {
  const d = deliverySettings({});
  assert.deepEqual(d.retryDelaysMs, [60_000, 300_000, 900_000]);
  assert.equal(d.testTimeoutMs, 30_000);
  const e = deliverySettings({ SDS_WEBHOOK_RETRY_DELAYS_MS: '1,2,3', SDS_WEBHOOK_TEST_TIMEOUT_MS: '500' });
  assert.deepEqual([e.retryDelaysMs, e.testTimeoutMs], [[1, 2, 3], 500]);
  const bad = (env: NodeJS.ProcessEnv) =>
    assert.throws(
      () => deliverySettings(env),
      (x: unknown) => x instanceof AppError && x.code === 'CONFIG_INVALID',
    );
  bad({ SDS_WEBHOOK_LEASE_MS: '1000' });
  bad({ SDS_WEBHOOK_RETRY_DELAYS_MS: '1,2' });
  bad({ SDS_WEBHOOK_CONCURRENCY: '0' });
  bad({ SDS_WEBHOOK_POLL_MS: 'fast' });
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => nextRetryAt(n, 1000, [60_000, 300_000, 900_000])),
    [61_000, 301_000, 901_000, null],
  );
});

test('isoMicros keeps microseconds', () => {
  assert.equal(isoMicros(Date.UTC(2025, 0, 15, 9, 0, 0) * 1000 + 123_456), '2025-01-15T09:00:00.123456Z');
  assert.equal(isoMicros(Date.UTC(2025, 0, 15) * 1000 + 7), '2025-01-15T00:00:00.000007Z');
});
