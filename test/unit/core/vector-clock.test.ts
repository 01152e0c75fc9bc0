import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareClocks, mergeClocks, tickClock } from '../../../src/core/cases/vector-clock.js';

const c = (...pairs: [string, number][]) => pairs.map(([deviceId, revision]) => ({ deviceId, revision }));

test('clock order follows CSPro: missing devices count as 0', () => {
  assert.equal(compareClocks(c(['a', 1]), c(['a', 1])), 'equal');
  assert.equal(compareClocks(c(['a', 1]), c(['a', 2])), 'before');
  assert.equal(compareClocks(c(['a', 2]), c(['a', 1])), 'after');
  assert.equal(compareClocks(c(['a', 1]), c(['a', 1], ['b', 1])), 'before');
  assert.equal(compareClocks(c(['a', 2], ['b', 0]), c(['a', 2])), 'equal');
  assert.equal(compareClocks(c(['a', 2]), c(['a', 1], ['b', 1])), 'concurrent');
});

test('merge takes the per-device maximum and tick increments one device', () => {
  assert.deepEqual(mergeClocks(c(['a', 2], ['b', 1]), c(['b', 3], ['c', 1])), c(['a', 2], ['b', 3], ['c', 1]));
  assert.deepEqual(tickClock(c(['a', 2]), 'a'), c(['a', 3]));
  assert.deepEqual(tickClock(c(['a', 2]), 's'), c(['a', 2], ['s', 1]));
});
