import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCron, nextOccurrence } from '../../../src/scheduler/cron.js';
import { checkTimeZone } from '../../../src/scheduler/zone.js';
import { formatRunLog, runLogName } from '../../../src/scheduler/run-log.js';
import { schedulerSettings } from '../../../src/core/scheduler/settings.js';
import { nextRunOf } from '../../../src/core/scheduler/schedules.js';
import { resolveHome } from '../../../src/shared/home.js';
import { AppError } from '../../../src/shared/errors.js';

function cronError(expr: unknown): AppError {
  try {
    checkCron(expr);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'CRON_INVALID');
    return err;
  }
  assert.fail(`${JSON.stringify(expr)} was accepted`);
}

const next = (expr: string, after: string, zone = 'UTC') => nextOccurrence(expr, new Date(after), zone).toISOString();

test('checkCron accepts the classic five-field forms and normalises whitespace', () => {
  for (const e of [
    '0 2 * * *',
    '*/15 * * * *',
    '0 6-20/2 * * mon-fri',
    '5,35 1 1-15 JAN,jul *',
    '0 0 * * 7',
    '0 0 * * 0',
    '59 23 31 12 6',
  ]) {
    assert.equal(checkCron(e), e);
  }
  assert.equal(checkCron('  0   2 *\t* *  '), '0 2 * * *');
});

test('checkCron names the field of an out-of-range value', () => {
  assert.equal(cronError('0 25 * * *').message, 'hour: 25 is out of range 0-23');
  assert.equal(cronError('60 * * * *').message, 'minute: 60 is out of range 0-59');
  assert.equal(cronError('0 0 0 * *').message, 'day of month: 0 is out of range 1-31');
  assert.equal(cronError('0 0 * 13 *').message, 'month: 13 is out of range 1-12');
  assert.equal(cronError('0 0 * * 8').message, 'day of week: 8 is out of range 0-7');
  assert.equal(cronError('0 1-30 * * *').message, 'hour: 30 is out of range 0-23');
  assert.equal(cronError('0 0,24 * * *').details.cron_field, 'hour');
  assert.match(cronError('*/0 * * * *').message, /^minute: step "0"/);
  assert.match(cronError('0 5-3 * * *').message, /^hour: range 5-3 goes backwards/);
  assert.match(cronError('0 0 * foo *').message, /^month: "foo" is not a number/);
});

test('checkCron refuses aliases, other field counts, extensions, and over-long expressions', () => {
  assert.match(cronError('@daily').message, /aliases such as @daily/);
  assert.match(cronError('@hourly').message, /aliases/);
  assert.match(cronError('0 0 2 * * *').message, /has 6 fields; exactly 5/);
  assert.match(cronError('0 2 * *').message, /has 4 fields/);
  assert.match(cronError('0 0 L * *').message, /^day of month:/);
  assert.match(cronError('0 0 ? * *').message, /^day of month:/);
  assert.match(cronError('H * * * *').message, /^minute:/);
  assert.match(cronError('0 0 * * 1#2').message, /^day of week:/);
  assert.match(cronError('0 0 30 2 *').message, /never matches/);
  assert.match(cronError(`0 0 * * ${'1,'.repeat(50)}1`).message, /at most 100/);
  assert.match(cronError('').message, /non-empty/);
  assert.match(cronError(5).message, /non-empty string/);
});

test('nextOccurrence is strictly after the given time, at minute resolution, in UTC by default', () => {
  assert.equal(next('0 2 * * *', '2025-01-15T09:00:00Z'), '2025-01-16T02:00:00.000Z');
  assert.equal(next('0 2 * * *', '2025-01-15T01:59:59Z'), '2025-01-15T02:00:00.000Z');
  assert.equal(next('0 2 * * *', '2025-01-15T02:00:00Z'), '2025-01-16T02:00:00.000Z');
  assert.equal(next('*/15 * * * *', '2025-01-15T09:07:30Z'), '2025-01-15T09:15:00.000Z');
  // Day of month and day of week both restricted: either matches, as in cron.
  assert.equal(next('0 0 13 * fri', '2025-06-01T00:00:00Z'), '2025-06-06T00:00:00.000Z');
  assert.equal(next('0 0 * * 7', '2025-01-15T00:00:00Z'), '2025-01-19T00:00:00.000Z');
});

test('nextOccurrence reads the wall clock of the zone', () => {
  // 02:00 in Paris is 01:00 UTC in winter (CET) and 00:00 UTC in summer (CEST).
  assert.equal(next('0 2 * * *', '2025-01-15T09:00:00Z', 'Europe/Paris'), '2025-01-16T01:00:00.000Z');
  assert.equal(next('0 2 * * *', '2025-07-15T09:00:00Z', 'Europe/Paris'), '2025-07-16T00:00:00.000Z');
  assert.equal(next('30 2 * * *', '2025-01-15T09:00:00Z', 'America/New_York'), '2025-01-16T07:30:00.000Z');
});

test('spring forward: a time that does not exist runs at the first minute after the gap, once', () => {
  // Europe/Paris, 2025-03-30: clocks jump from 02:00 to 03:00 CEST (01:00 UTC). 02:00 never happens.
  assert.equal(next('0 2 * * *', '2025-03-29T12:00:00Z', 'Europe/Paris'), '2025-03-30T01:00:00.000Z');
  assert.equal(next('0 2 * * *', '2025-03-30T01:00:00Z', 'Europe/Paris'), '2025-03-31T00:00:00.000Z');
  // America/New_York, 2025-03-09: 02:00 EST → 03:00 EDT (07:00 UTC).
  assert.equal(next('30 2 * * *', '2025-03-08T12:00:00Z', 'America/New_York'), '2025-03-09T07:30:00.000Z');
  assert.equal(next('30 2 * * *', '2025-03-09T07:30:00Z', 'America/New_York'), '2025-03-10T06:30:00.000Z');
});

test('fall back: a time that occurs twice runs once, at its first occurrence', () => {
  // Europe/Paris, 2025-10-26: 03:00 CEST → 02:00 CET; 02:00 happens at 00:00 and 01:00 UTC.
  assert.equal(next('0 2 * * *', '2025-10-25T12:00:00Z', 'Europe/Paris'), '2025-10-26T00:00:00.000Z');
  assert.equal(next('0 2 * * *', '2025-10-26T00:00:00Z', 'Europe/Paris'), '2025-10-27T01:00:00.000Z');
  // America/New_York, 2025-11-02: 01:30 happens at 05:30 and 06:30 UTC.
  assert.equal(next('30 1 * * *', '2025-11-01T12:00:00Z', 'America/New_York'), '2025-11-02T05:30:00.000Z');
  assert.equal(next('30 1 * * *', '2025-11-02T05:30:00Z', 'America/New_York'), '2025-11-03T06:30:00.000Z');
});

test('next_run exists only while a schedule is enabled', () => {
  assert.equal(nextRunOf(false, '0 2 * * *', new Date('2025-01-15T09:00:00Z'), 'UTC'), null);
  assert.equal(nextRunOf(true, '0 2 * * *', new Date('2025-01-15T09:00:00Z'), 'UTC'), '2025-01-16T02:00:00.000Z');
});

test('time zone names are checked', () => {
  assert.equal(checkTimeZone('Europe/Paris', 'SDS_TIMEZONE'), 'Europe/Paris');
  assert.throws(
    () => checkTimeZone('Europe/Pariss', 'SDS_TIMEZONE'),
    (e: AppError) => e.code === 'CONFIG_INVALID' && /SDS_TIMEZONE: "Europe\/Pariss"/.test(e.message),
  );
});

test('scheduler settings: environment over config.json over defaults; SDS_NOW fixes the clock', () => {
  const root = mkdtempSync(join(tmpdir(), 'sds-sched-'));
  try {
    const home = resolveHome(root);
    const d = schedulerSettings(home, { env: {} });
    assert.deepEqual([d.zone, d.timeoutSeconds, d.killGraceSeconds, d.keepRuns, d.foreignRunGraceSeconds], ['UTC', 3600, 30, 100, 300]);
    writeFileSync(
      join(root, 'config.json'),
      '\uFEFF{"timezone":"America/New_York","scheduler":{"timeout_seconds":600,"keep_runs":5,"foreign_run_grace_seconds":60}}',
    );
    const c = schedulerSettings(home, { env: {} });
    assert.deepEqual([c.zone, c.timeoutSeconds, c.keepRuns, c.foreignRunGraceSeconds], ['America/New_York', 600, 5, 60]);
    assert.equal(schedulerSettings(home, { env: { SDS_SCHEDULER_FOREIGN_RUN_GRACE: '0' } }).foreignRunGraceSeconds, 0);
    const e = schedulerSettings(home, {
      env: { SDS_TIMEZONE: 'Europe/Paris', SDS_SCHEDULER_TIMEOUT: '2', SDS_NOW: '2030-01-01T00:00:00Z' },
    });
    assert.deepEqual([e.zone, e.timeoutSeconds, e.now().toISOString()], ['Europe/Paris', 2, '2030-01-01T00:00:00.000Z']);
    assert.equal(schedulerSettings(home, { env: { SDS_SCHEDULER_TIMEOUT: '2' }, timeoutSeconds: '7' }).timeoutSeconds, 7);
    assert.throws(() => schedulerSettings(home, { env: { SDS_TIMEZONE: 'Mars/Olympus' } }), /SDS_TIMEZONE/);
    assert.throws(() => schedulerSettings(home, { env: { SDS_SCHEDULER_TIMEOUT: '0' } }), /SDS_SCHEDULER_TIMEOUT must be a whole number/);
    assert.throws(() => schedulerSettings(home, { env: { SDS_NOW: 'tomorrow' } }), /SDS_NOW/);
    writeFileSync(join(root, 'config.json'), '{"timezone": "Nowhere/Land"}');
    assert.throws(() => schedulerSettings(home, { env: {} }), /config.json timezone/);
    writeFileSync(join(root, 'config.json'), '{not json');
    assert.throws(
      () => schedulerSettings(home, { env: {} }),
      (e: AppError) => e.code === 'CONFIG_INVALID',
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('run log: the name of docs/scheduler.md#run-log-files and its sections in order', () => {
  const at = new Date('2025-03-30T01:02:03.456Z');
  assert.equal(runLogName('CEN2000', at), 'CEN2000_2025-03-30_01-02-03.log');
  assert.equal(runLogName('CEN2000', at, 2), 'CEN2000_2025-03-30_01-02-03-2.log');
  const text = formatRunLog({
    command: 'sds process-cases-by-dict CEN2000',
    startedAt: at,
    endedAt: at,
    exitCode: 124,
    note: 'stopped',
    stdout: 'out\n',
    stderr: 'err',
  });
  const lines = text.split('\n');
  assert.equal(lines[0], 'Command: sds process-cases-by-dict CEN2000');
  assert.equal(lines[1], 'Started: 2025-03-30T01:02:03.456Z');
  assert.ok(lines.includes('Exit code: 124') && lines.includes('Interrupted: stopped'));
  assert.ok(
    lines.indexOf('--- STDOUT ---') < lines.indexOf('out') &&
      lines.indexOf('out') < lines.indexOf('--- STDERR ---') &&
      lines.indexOf('--- STDERR ---') < lines.indexOf('err'),
  );
});
