// The restart policy of `sds serve --workers N` (docs/production.md#workers): the delay doubles
// with each restart in the window, restarts older than the window are forgotten, and at the
// limit the answer is to stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restartDelay } from '../../../../src/core/workers/restart-policy.js';

const S = { restartLimit: 3, restartWindowMs: 60_000, restartDelayMs: 1000 };

test('the first restart waits the delay, each further one in the window twice as long', () => {
  assert.equal(restartDelay([], 100_000, S), 1000);
  assert.equal(restartDelay([90_000], 100_000, S), 2000);
  assert.equal(restartDelay([80_000, 90_000], 100_000, S), 4000);
});

test('at the limit within the window: stop (undefined); restarts out of the window do not count', () => {
  assert.equal(restartDelay([50_000, 80_000, 90_000], 100_000, S), undefined);
  assert.equal(restartDelay([10_000, 30_000, 90_000], 100_000, S), 2000);
  assert.equal(restartDelay([], 0, { ...S, restartLimit: 0 }), undefined);
});

test('the delay is capped at ten minutes', () => {
  assert.equal(restartDelay(Array(30).fill(99_000), 100_000, { ...S, restartLimit: 100 }), 600_000);
});
