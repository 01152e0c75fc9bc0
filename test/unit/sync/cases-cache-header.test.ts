import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { parseCasesCache } from '../../../src/sync/cases-cache-header.js';

const header = (value: unknown, zip = deflateSync) => zip(Buffer.from(JSON.stringify(value))).toString('base64');

test('the cache header is base64 of zlib JSON: the revision and the positions the client holds', () => {
  const got = parseCasesCache(header({ exclude: { serverRevision: 41, positions: [1, 2, 9] } }), 1 << 20);
  assert.deepEqual(got, { serverRevision: 41, positions: new Set([1, 2, 9]) });
  // Raw deflate is read too; entries that are not positions are skipped.
  assert.deepEqual(parseCasesCache(header({ exclude: { serverRevision: 3, positions: [4, 'x', 5.5] } }, deflateRawSync), 1 << 20), {
    serverRevision: 3,
    positions: new Set([4]),
  });
});

test('a cache header that cannot be read is ignored: the reply is then whole, never wrong', () => {
  assert.equal(parseCasesCache('', 1 << 20), undefined);
  assert.equal(parseCasesCache('not base64 of zlib!', 1 << 20), undefined);
  assert.equal(parseCasesCache(deflateSync(Buffer.from('{')).toString('base64'), 1 << 20), undefined);
  assert.equal(parseCasesCache(header({ exclude: { positions: [1] } }), 1 << 20), undefined);
  assert.equal(parseCasesCache(header({ exclude: { serverRevision: 1, positions: 'all' } }), 1 << 20), undefined);
  assert.equal(parseCasesCache(header({ serverRevision: 1, positions: [1] }), 1 << 20), undefined);
  // Past the inflated-size limit (a compression bomb in a header) it is not read.
  const many = { exclude: { serverRevision: 1, positions: Array.from({ length: 5000 }, (_, i) => i + 1) } };
  assert.equal(parseCasesCache(header(many), 1024), undefined);
  assert.equal(parseCasesCache(header(many), 1 << 20)?.positions.size, 5000);
});

test('a cache header nested deeper than the depth limit is not parsed: ignored', () => {
  const nested = (n: number) => ({
    exclude: { serverRevision: 1, positions: [1] },
    x: JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`) as unknown,
  });
  // The object around `x` is one level: 63 arrays make 64, the limit given.
  assert.equal(parseCasesCache(header(nested(63)), 1 << 20, 64)?.serverRevision, 1);
  assert.equal(parseCasesCache(header(nested(64)), 1 << 20, 64), undefined);
  assert.equal(parseCasesCache(header(nested(64)), 1 << 20, 65)?.serverRevision, 1);
});
