// Where the check threads of `sds serve` come from (docs/production.md#check-threads): the flag,
// else SDS_CHECK_THREADS, else config.json workers.check_threads, else one on a machine of two
// cores or more; a value out of range is named where it came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome } from '../../../../src/shared/home.js';
import { checkThreadsFlag, workerSettings } from '../../../../src/core/workers/settings.js';

function homeWith(t: { after(fn: () => void): void }, config?: unknown) {
  const root = mkdtempSync(join(tmpdir(), 'sds-check-threads-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  if (config !== undefined) writeFileSync(join(root, 'config.json'), JSON.stringify(config));
  return resolveHome(root);
}

test('check threads: one by default on two cores or more, none on one core', (t) => {
  assert.equal(workerSettings(homeWith(t), {}).checkThreads, availableParallelism() > 1 ? 1 : 0);
});

test('check threads: the flag over SDS_CHECK_THREADS over config.json', (t) => {
  const home = homeWith(t, { workers: { check_threads: 3 } });
  assert.equal(workerSettings(home, {}).checkThreads, 3);
  assert.equal(workerSettings(home, { SDS_CHECK_THREADS: '0' }).checkThreads, 0);
  assert.equal(workerSettings(home, { SDS_CHECK_THREADS: '0' }, undefined, 5).checkThreads, 5);
});

test('check threads: out of range is CONFIG_INVALID naming its source, or USAGE for the flag', (t) => {
  assert.throws(
    () => workerSettings(homeWith(t, { workers: { check_threads: 65 } }), {}),
    (e: { code: string; message: string }) => e.code === 'CONFIG_INVALID' && /check_threads/.test(e.message),
  );
  assert.throws(
    () => workerSettings(homeWith(t), { SDS_CHECK_THREADS: 'many' }),
    (e: { code: string; message: string }) => e.code === 'CONFIG_INVALID' && /SDS_CHECK_THREADS/.test(e.message),
  );
  for (const bad of ['-1', '65', '1.5', 'two', '']) assert.throws(() => checkThreadsFlag(bad), { code: 'USAGE' });
  assert.equal(checkThreadsFlag('0'), 0);
  assert.equal(checkThreadsFlag(' 64 '), 64);
});
