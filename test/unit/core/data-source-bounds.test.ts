import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageBounds } from '../../../src/core/sync/data-source.js';

test('a reply holds the client limit up to the server cap; a capped one reads one more row to know whether it was cut', () => {
  assert.deepEqual(pageBounds(50, 1000), { take: 50, capped: false });
  assert.deepEqual(pageBounds(1000, 1000), { take: 1000, capped: false });
  assert.deepEqual(pageBounds(5000, 1000), { take: 1000, capped: true });
  assert.deepEqual(pageBounds(undefined, 1000), { take: 1000, capped: true });
  assert.deepEqual(pageBounds(0, 1000), { take: 0, capped: false });
});
