/** Canonical values read back from the four drivers' representations. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalCell } from '../../../src/breakout/dialects/read-values.js';

test('integers: numbers within 2^53, strings beyond (pg int8 strings, SQLite bigints)', () => {
  const t = { kind: 'integer', digits: 20 } as const;
  assert.equal(canonicalCell(t, '42'), 42);
  assert.equal(canonicalCell(t, 42n), 42);
  assert.equal(canonicalCell(t, '9007199254740993'), '9007199254740993');
  assert.equal(canonicalCell(t, -9223372036854775807n), '-9223372036854775807');
  assert.equal(canonicalCell(t, null), null);
});

test('decimals: strings with exactly the column scale', () => {
  const t = { kind: 'decimal', precision: 7, scale: 2 } as const;
  assert.equal(canonicalCell(t, '12.50'), '12.50');
  assert.equal(canonicalCell(t, 12.5), '12.50');
  assert.equal(canonicalCell(t, 3n), '3.00');
  assert.equal(canonicalCell(t, '7'), '7.00');
  assert.equal(canonicalCell(t, '-0.1'), '-0.10');
});

test('booleans, guids, timestamps', () => {
  assert.equal(canonicalCell({ kind: 'boolean' }, 1), true);
  assert.equal(canonicalCell({ kind: 'boolean' }, 0n), false);
  assert.equal(canonicalCell({ kind: 'guid' }, '6F9619FF-8B86-D011-B42D-00C04FC964FF'), '6f9619ff-8b86-d011-b42d-00c04fc964ff');
  assert.equal(canonicalCell({ kind: 'timestamp' }, new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))), '2024-01-02T03:04:05.006Z');
  assert.equal(canonicalCell({ kind: 'timestamp' }, '2024-01-02 03:04:05.006'), '2024-01-02T03:04:05.006Z');
  assert.equal(canonicalCell({ kind: 'timestamp' }, '2024-01-02T03:04:05.006Z'), '2024-01-02T03:04:05.006Z');
});
