/**
 * `sds metrics` and `sds logs`: the integration API's metrics and breakout log from the CLI, after
 * a real import and an incremental breakout into the embedded SQLite target.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const home = await tempHome();
after(() => home.cleanup());

test('metrics and logs before and after a breakout, in JSON and for humans', { timeout: 120_000 }, async () => {
  assert.equal((await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'])).code, 0);
  assert.equal((await sds(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat')])).code, 0);

  const before = await sds(home.root, ['metrics', '--json']);
  assert.equal(before.code, 0, show(before));
  assert.deepEqual(before.json(), {
    total_cases: 4872,
    cases_by_dictionary: { CEN2000: 4872 },
    breakout_status: { CEN2000: 'not_started' },
    sync_rate: '0.0%',
    sync_rate_by_dictionary: { CEN2000: '0.0%' },
    breakout_interrupted: { CEN2000: null },
  });
  const empty = await sds(home.root, ['logs']);
  assert.equal(empty.code, 0, show(empty));
  assert.equal(empty.stdout.trim(), 'no breakout log entries');

  const run = await sds(home.root, ['process-cases-by-dict', 'CEN2000', '--json']);
  assert.equal(run.code, 0, show(run));

  const m = await sds(home.root, ['metrics', '--json']);
  assert.deepEqual(m.json(), {
    total_cases: 4872,
    cases_by_dictionary: { CEN2000: 4872 },
    breakout_status: { CEN2000: 'completed' },
    sync_rate: '100.0%',
    sync_rate_by_dictionary: { CEN2000: '100.0%' },
    breakout_interrupted: { CEN2000: null },
  });
  const human = await sds(home.root, ['metrics']);
  // The share is said as what it measures: cases broken out, not a sync of devices.
  assert.equal(
    human.stdout,
    'dictionary\tcases\tbreakout\tbroken out\nCEN2000\t4872\tcompleted\t100.0%\ntotal cases: 4872, broken out into the targets: 100.0% (sync_rate)\n',
  );

  const logs = await sds(home.root, ['logs', '--dictionary', 'CEN2000', '--limit', '2', '--json']);
  assert.equal(logs.code, 0, show(logs));
  const entries = logs.json().logs as { timestamp: string; level: string; dictionary: string; message: string; progress: string }[];
  assert.equal(entries.length, 2);
  for (const e of entries) {
    assert.deepEqual(Object.keys(e).sort(), ['dictionary', 'level', 'message', 'progress', 'timestamp']);
    assert.equal(e.dictionary, 'CEN2000');
    assert.equal(e.level, 'info');
  }
  // Newest first: the job's end comes before anything else of it.
  assert.equal(entries[0]!.progress, '100%');
  assert.ok(entries[0]!.timestamp >= entries[1]!.timestamp);
  const all = (await sds(home.root, ['logs', '--json'])).json().logs as { progress: string }[];
  assert.ok(all.length > 2);
  assert.equal(all.at(-1)!.progress, '0%');

  const bad = await sds(home.root, ['logs', '--limit', '0', '--json']);
  assert.equal(bad.code, 2);
  assert.equal(bad.json().error, 'USAGE');
  const unknown = await sds(home.root, ['logs', '--dictionary', 'NOPE', '--json']);
  assert.equal(unknown.code, 3);
  assert.equal(unknown.json().error, 'DICTIONARY_NOT_FOUND');
});
