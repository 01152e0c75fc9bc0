import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStalePart, partName, partWriter, type StaleRule } from '../../../src/store/file-store/local/part-name.js';
import { DEFAULT_LIMITS, limitsSettings } from '../../../src/core/home/limits.js';
import { MAX_SEGMENT_BYTES } from '../../../src/core/files/media-path.js';

// When a temporary upload file is stale (docs/sync.md#files, "Temporary files"): its writer's
// process is gone, or it is untouched for the limit whoever wrote it.

const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 0, 1);
const rule = (alive: number[]): StaleRule => ({ now: NOW, maxAgeMs: 24 * HOUR, selfPid: 1, alive: (pid) => alive.includes(pid) });

test('the temporary name carries the writer pid and fits beside the longest name allowed', () => {
  const name = partName('house 1.jpg', 4242, '0123456789ab');
  assert.equal(name, '.house 1.jpg.4242-0123456789ab.part');
  assert.deepEqual(partWriter(name), { pid: 4242 });
  assert.deepEqual(partWriter('.house 1.jpg.0123456789ab.part'), { pid: undefined }, 'a name from before the pid');
  for (const other of ['house.part', '.DS_Store', '.house.jpg.part', '.x.12-0123456789ab.part.tmp', 'x.12-0123456789ab.part'])
    assert.equal(partWriter(other), undefined, other);
  const longest = partName('a'.repeat(MAX_SEGMENT_BYTES), 2 ** 31 - 1, 'ffffffffffff');
  assert.ok(Buffer.byteLength(longest) <= 255, `${Buffer.byteLength(longest)} bytes`);
});

test('stale: a dead writer, or this process (a previous life of its pid), or untouched past the limit', () => {
  const fresh = NOW - 1000;
  const old = NOW - 24 * HOUR;
  assert.equal(isStalePart({ pid: 77 }, fresh, rule([77])), false, 'another live process is writing it');
  assert.equal(isStalePart({ pid: 77 }, fresh, rule([])), true, 'its writer is gone');
  assert.equal(isStalePart({ pid: 1 }, fresh, rule([1])), true, 'the deciding process has written nothing yet');
  assert.equal(isStalePart({ pid: 77 }, old, rule([77])), true, 'untouched a day: the pid may be another process now');
  assert.equal(isStalePart({ pid: 77 }, old + 1, rule([77])), false);
  assert.equal(isStalePart({ pid: undefined }, fresh, rule([])), false, 'no pid: only the age tells');
  assert.equal(isStalePart({ pid: undefined }, old, rule([])), true);
});

test('the age is the stale_part_seconds limit: a day by default, from 60 s, set in config.json or the environment', () => {
  assert.equal(DEFAULT_LIMITS.stalePartSeconds, 86_400);
  assert.equal(limitsSettings({ limits: { stale_part_seconds: 3600 } }, {}).stalePartSeconds, 3600);
  assert.equal(limitsSettings({ limits: { stale_part_seconds: 3600 } }, { SDS_LIMIT_STALE_PART_SECONDS: '120' }).stalePartSeconds, 120);
  assert.throws(() => limitsSettings({ limits: { stale_part_seconds: 5 } }, {}), /stale_part_seconds/);
});
