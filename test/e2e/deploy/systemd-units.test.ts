/**
 * The systemd units of deploy/systemd/ (docs/production.md#the-systemd-units): every unit passes
 * `systemd-analyze verify` without a warning about it, once the one machine-specific path (where
 * sds is installed) points at this checkout's bin/sds; the hardening and the settings the runbook
 * relies on are there; and the scheduler unit's command line runs as written against a real home.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDS_BIN } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { INSTALLED_SDS, readDeploy, replaceExactly, skipWithout, unitFiles, unitSettings } from '../../helpers/deploy-files.js';

const noAnalyze = skipWithout('systemd-analyze', 'systemd');
const dir = mkdtempSync(join(tmpdir(), 'sds-units-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SERVICES = ['sds.service', 'sds-scheduler.service', 'sds-backup.service'];
const TIMERS = ['sds-scheduler.timer', 'sds-backup.timer'];

test('deploy/systemd holds the three services and two timers of the runbook', () => {
  assert.deepEqual(unitFiles().sort(), [...SERVICES, ...TIMERS].sort());
});

test('systemd-analyze verify accepts every unit, with no warning about our files', { skip: noAnalyze }, () => {
  const paths = unitFiles().map((name) => {
    let text = readDeploy(`systemd/${name}`);
    // The one substitution: systemd-analyze checks that ExecStart's binary exists.
    if (name.endsWith('.service')) text = replaceExactly(text, INSTALLED_SDS, SDS_BIN);
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
  const r = spawnSync('systemd-analyze', ['verify', ...paths], { encoding: 'utf8' });
  assert.equal(r.error, undefined, `systemd-analyze could not run: ${r.error?.message}`);
  const ours = (r.stdout + r.stderr).split('\n').filter((l) => unitFiles().some((name) => l.includes(name)));
  assert.deepEqual(ours, [], `systemd-analyze said about our units:\n${ours.join('\n')}`);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the services run as sds, with the home writable and the rest of the system read-only', () => {
  for (const name of SERVICES) {
    const s = unitSettings(readDeploy(`systemd/${name}`));
    const one = (key: string) => s.get(key)?.at(-1);
    assert.equal(one('User'), 'sds', name);
    assert.equal(one('UMask'), '0077', name);
    assert.equal(one('NoNewPrivileges'), 'yes', name);
    assert.equal(one('ProtectSystem'), 'strict', name);
    assert.equal(one('PrivateTmp'), 'yes', name);
    assert.equal(one('EnvironmentFile'), '/etc/sds/sds.env', name);
    assert.ok(one('ReadWritePaths')?.split(' ').includes('/var/lib/sds'), name);
    assert.match(one('ExecStart') ?? '', new RegExp(`^${INSTALLED_SDS} --home /var/lib/sds `), name);
  }
  const backup = unitSettings(readDeploy('systemd/sds-backup.service'));
  assert.ok(backup.get('ReadWritePaths')!.at(-1)!.split(' ').includes('/var/backups/sds'));
  assert.match(backup.get('ExecStart')!.at(-1)!, / backup \/var\/backups\/sds --keep 14$/);
});

test('serve stops on SIGTERM with time for its 10 s grace period, and is not restarted on a store to migrate', () => {
  const s = unitSettings(readDeploy('systemd/sds.service'));
  assert.equal(s.get('Type')?.at(-1), 'simple');
  assert.equal(s.get('KillSignal')?.at(-1), 'SIGTERM');
  assert.ok(Number(s.get('TimeoutStopSec')?.at(-1)) > 10, 'TimeoutStopSec must exceed the grace period of sds serve');
  assert.equal(s.get('Restart')?.at(-1), 'on-failure');
  // Exit 3 is STORE_NEEDS_MIGRATION and HOME_NOT_FOUND, 2 CONFIG_INVALID: restarting cannot help.
  assert.deepEqual(s.get('RestartPreventExitStatus')?.at(-1)?.split(' '), ['2', '3']);
});

test('the scheduler is a oneshot service started every minute, the backup nightly', () => {
  const sched = unitSettings(readDeploy('systemd/sds-scheduler.service'));
  assert.equal(sched.get('Type')?.at(-1), 'oneshot');
  assert.match(sched.get('ExecStart')!.at(-1)!, / scheduler-run$/);
  const tick = unitSettings(readDeploy('systemd/sds-scheduler.timer'));
  assert.equal(tick.get('OnCalendar')?.at(-1), '*-*-* *:*:00');
  assert.equal(tick.get('Unit')?.at(-1), 'sds-scheduler.service');
  const nightly = unitSettings(readDeploy('systemd/sds-backup.timer'));
  assert.equal(nightly.get('Unit')?.at(-1), 'sds-backup.service');
  assert.match(nightly.get('OnCalendar')!.at(-1)!, /^\*-\*-\* \d\d:\d\d:00$/);
});

test("the scheduler unit's command line runs as written against a real home (exit 0, nothing due)", async () => {
  const home = await tempHome();
  try {
    const exec = unitSettings(readDeploy('systemd/sds-scheduler.service')).get('ExecStart')!.at(-1)!;
    const argv = exec.split(' ');
    assert.equal(argv[0], INSTALLED_SDS);
    const args = argv.slice(1).map((a) => (a === '/var/lib/sds' ? home.root : a));
    const r = spawnSync(process.execPath, [SDS_BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /no schedules due/);
  } finally {
    await home.cleanup();
  }
});

for (const name of SERVICES) {
  test(`every option of ${name}'s command line is one the real CLI knows`, () => {
    const exec = unitSettings(readDeploy(`systemd/${name}`))
      .get('ExecStart')!
      .at(-1)!;
    const argv = exec.split(' ');
    const command = argv[3]!;
    const help = spawnSync(process.execPath, [SDS_BIN, command, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stdout + help.stderr);
    for (const option of argv.slice(4).filter((a) => a.startsWith('--'))) assert.ok(help.stdout.includes(option), `${option} of ${name}`);
  });
}
