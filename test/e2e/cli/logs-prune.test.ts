/**
 * `sds logs prune` and the automatic prune of `sds scheduler-run`, with the real CLI over a real
 * home (docs/logs.md#retention); `sds logs` keeps listing the breakout log as before.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli as sds, show } from '../../helpers/run-cli.js';
import { tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

const home = await tempHome();
after(() => home.cleanup());

/** An import log written `days` days ago. */
function importLog(name: string, days: number, bytes = 64): string {
  mkdirSync(home.importLogs, { recursive: true });
  const path = join(home.importLogs, name);
  writeFileSync(path, 'w'.repeat(bytes));
  const t = new Date(Date.now() - days * 86_400_000);
  utimesSync(path, t, t);
  return path;
}

test('sds logs still lists the breakout log, with its options', () => {
  const plain = sds(home.root, ['logs']);
  assert.equal(plain.code, 0, show(plain));
  assert.equal(plain.stdout.trim(), 'no breakout log entries');
  const json = sds(home.root, ['logs', '--limit', '5', '--json']);
  assert.equal(json.code, 0, show(json));
  assert.deepEqual(json.json(), { logs: [] });
  const bad = sds(home.root, ['logs', '--limit', '0']);
  assert.equal(bad.code, 2, show(bad));
});

test('sds logs prune: a dry run, then the prune, by age and by count', () => {
  const old = importLog('CEN2000_2026-01-01_00-00-00.log', 45, 100);
  const recent = importLog('CEN2000_2026-06-01_00-00-00.log', 2, 50);

  const dry = sds(home.root, ['logs', 'prune', '--dry-run', '--json']);
  assert.equal(dry.code, 0, show(dry));
  assert.equal(dry.json().dry_run, true);
  assert.deepEqual(dry.json().kinds.import, { rows: 0, files: 1, bytes: 100 });
  assert.ok(existsSync(old), 'a dry run deletes nothing');

  const human = sds(home.root, ['logs', 'prune']);
  assert.equal(human.code, 0, show(human));
  assert.match(
    human.stdout,
    /^deleted logs older than 30 days \(before \S+Z\) or beyond the newest 1000 of each kind,\nand sync messages older than 90 days \(before \S+Z\) or beyond the newest 100000\n/,
  );
  assert.match(human.stdout, /\nimport\s+0\s+1\s+100\n/);
  assert.ok(!existsSync(old) && existsSync(recent));

  const all = sds(home.root, ['logs', 'prune', '--older-than', '0', '--keep', '0', '--json']);
  assert.equal(all.code, 0, show(all));
  assert.deepEqual(all.json().total, { rows: 0, files: 1, bytes: 50 });
  assert.ok(!existsSync(recent));
});

test('sds logs prune with a bad value: exit 2 naming the flag; a bad setting names its source', () => {
  const bad = sds(home.root, ['logs', 'prune', '--keep', 'ten']);
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /USAGE: the number of entries kept must be a whole number from 0 to 10000000; got "ten" \(option --keep\)/);
  const days = sds(home.root, ['logs', 'prune', '--older-than', '-3']);
  assert.equal(days.code, 2, show(days));
  const env = sds(home.root, ['logs', 'prune'], { env: { SDS_LOG_RETENTION_COUNT: '0' } });
  assert.equal(env.code, 2, show(env));
  assert.match(env.stderr, /CONFIG_INVALID: SDS_LOG_RETENTION_COUNT must be a whole number from 1 to 10000000; got "0"/);
  writeHomeConfig(home, { logs: { retention_days: 'a month' } });
  try {
    const file = sds(home.root, ['logs', 'prune']);
    assert.equal(file.code, 2, show(file));
    assert.match(file.stderr, /CONFIG_INVALID: logs\.retention_days in \S+config\.json must be a whole number/);
  } finally {
    writeHomeConfig(home, '{}');
  }
});

test('sds scheduler-run prunes once per interval, whichever process asks', () => {
  const first = importLog('A_2026-01-01_00-00-00.log', 40);
  const tick = sds(home.root, ['scheduler-run', '--json']);
  assert.equal(tick.code, 0, show(tick));
  assert.equal(tick.json().logs_pruned.kinds.import.files, 1);
  assert.ok(!existsSync(first));

  const second = importLog('B_2026-01-01_00-00-00.log', 40);
  const next = sds(home.root, ['scheduler-run', '--json']);
  assert.equal(next.code, 0, show(next));
  assert.equal(next.json().logs_pruned, null, 'pruned less than an hour ago');
  assert.ok(existsSync(second));

  const text = sds(home.root, ['scheduler-run'], { env: { SDS_LOG_PRUNE_INTERVAL_MINUTES: '0' } });
  assert.equal(text.code, 0, show(text));
  assert.doesNotMatch(text.stdout, /logs pruned/);
  assert.ok(existsSync(second), 'interval 0: never automatically');

  const cfg = sds(home.root, ['config', '--json']);
  assert.equal(cfg.code, 0, show(cfg));
  const names = (cfg.json().settings as { name: string }[]).map((x) => x.name);
  for (const n of ['logs.retention_days', 'logs.retention_count', 'logs.prune_interval_minutes', 'logs.format'])
    assert.ok(names.includes(n), n);
});
