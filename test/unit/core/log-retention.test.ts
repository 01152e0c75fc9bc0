/**
 * Log retention over a real store and real log folders (docs/logs.md#retention): pruneLogs,
 * the automatic prune shared by several processes, the settings, and the server's timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { metrics } from '../../../src/core/metrics/index.js';
import { autoPruneLogs, logSettingsFrom, pruneLogs, startLogPruner } from '../../../src/core/logs/index.js';
import type { Store } from '../../../src/store/open-store.js';
import { AppError } from '../../../src/shared/errors.js';
import { fixture, storeSql, tempStore } from '../../helpers/temp-home.js';

const NOW = new Date('2026-06-30T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY);

/** A finished job of `dict`, ended `age` days before NOW, with a log entry and (optionally) its log file. */
async function finishedJob(
  store: Store,
  id: string,
  dict: string,
  status: 'completed' | 'failed' | 'cancelled',
  age: number,
  file = true,
): Promise<void> {
  await store.jobs.create({ id, dictionaries: [dict], mode: 'full', threads: 1, overwrite: false, origin: 'cli' });
  await store.jobs.finish(id, status);
  const at = daysAgo(age).toISOString();
  await storeSql(store, 'UPDATE jobs SET created_at = ?, finished_at = ? WHERE id = ?', [at, at, id]);
  await store.breakoutLog.add({ jobId: id, dictionary: dict, level: 'info', message: `job ${id} ended`, progress: 100, createdAt: at });
  if (file) writeFileSync(join(store.home.breakoutLogs, `job-${id}.log`), `log of ${id}\n`);
}

function oldFile(path: string, age: number, text = 'x'.repeat(100)): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  const t = daysAgo(age);
  utimesSync(path, t, t);
}

test('pruneLogs deletes old jobs, entries and files, keeps what the metrics read, and a dry run deletes nothing', async () => {
  const t = await tempStore();
  try {
    const { store, home } = t;
    const dict = (await uploadDictionary(store, { source: readFileSync(fixture('two-level.text.dcf')), label: 'tl' })).name;
    await finishedJob(store, 'c-old', dict, 'completed', 90);
    await finishedJob(store, 'c-last', dict, 'completed', 80);
    await finishedJob(store, 'f-last', dict, 'failed', 70);
    await finishedJob(store, 'x-old', dict, 'cancelled', 60, false); // its file is already gone
    await finishedJob(store, 'x-new', dict, 'cancelled', 1);
    await store.jobs.create({ id: 'running', dictionaries: ['OTHER'], mode: 'full', threads: 1, overwrite: false, origin: 'cli' });
    await store.breakoutLog.add({
      jobId: 'running',
      dictionary: 'OTHER',
      level: 'info',
      message: 'old but running',
      progress: 5,
      createdAt: daysAgo(99).toISOString(),
    });
    oldFile(join(home.importLogs, `${dict}_2026-01-01_00-00-00.log`), 90);
    oldFile(join(home.importLogs, `${dict}_2026-06-30_00-00-00.log`), 0.5);
    oldFile(join(home.breakoutLogs, 'job-orphan.log'), 45, 'orphan');

    const before = await metrics(store);
    assert.equal(before.breakout_status[dict], 'failed');

    const dry = await pruneLogs(store, { now: NOW, dryRun: true });
    assert.equal(dry.dry_run, true);
    assert.equal((await store.logRetention.jobs()).length, 6, 'a dry run deletes no row');
    assert.ok(existsSync(join(home.breakoutLogs, 'job-c-old.log')), 'a dry run deletes no file');

    const r = await pruneLogs(store, { now: NOW });
    assert.deepEqual(r.kinds, dry.kinds, 'the dry run announced exactly what the prune did');
    assert.deepEqual(r.kinds.jobs, { rows: 2, files: 2, bytes: 'log of c-old\n'.length + 'orphan'.length });
    // Those of the two pruned jobs, and the old ones of the jobs kept for the metrics.
    assert.deepEqual(r.kinds.breakout, { rows: 4, files: 0, bytes: 0 });
    assert.deepEqual(r.kinds.import, { rows: 0, files: 1, bytes: 100 });
    assert.deepEqual(r.total, { rows: 6, files: 3, bytes: r.kinds.jobs.bytes + 100 });
    assert.deepEqual((await store.logRetention.jobs()).map((j) => j.id).sort(), ['c-last', 'f-last', 'running', 'x-new']);
    assert.deepEqual(
      (await store.logRetention.logEntries()).map((e) => e.jobId).sort(),
      ['running', 'x-new'],
      'old entries went (with their job or by age); the running job keeps its old entry',
    );
    assert.ok(!existsSync(join(home.breakoutLogs, 'job-c-old.log')));
    assert.ok(!existsSync(join(home.breakoutLogs, 'job-orphan.log')));
    assert.ok(existsSync(join(home.breakoutLogs, 'job-x-new.log')));
    assert.deepEqual(await metrics(store), before, 'GET /api/metrics reads the same after the prune');

    // Everything beyond the count, whatever its age, except what is still needed.
    const all = await pruneLogs(store, { now: NOW, olderThanDays: '0', keep: '0' });
    assert.equal(all.kinds.jobs.rows, 1);
    assert.deepEqual((await store.logRetention.jobs()).map((j) => j.id).sort(), ['c-last', 'f-last', 'running']);
    assert.deepEqual(await metrics(store), before);
  } finally {
    await t.cleanup();
  }
});

test('bad --older-than and --keep values are USAGE naming the setting', async () => {
  const t = await tempStore();
  try {
    for (const [opts, field] of [
      [{ olderThanDays: '-1' }, 'older-than'],
      [{ olderThanDays: '36501' }, 'older-than'],
      [{ keep: 'ten' }, 'keep'],
    ] as const) {
      await assert.rejects(
        pruneLogs(t.store, { now: NOW, ...opts }),
        (e: unknown) => e instanceof AppError && e.code === 'USAGE' && e.details.field === field,
      );
    }
  } finally {
    await t.cleanup();
  }
});

test('the automatic prune runs once per interval whichever process asks, and not at all with interval 0', async () => {
  const t = await tempStore();
  try {
    const settings = logSettingsFrom({}, {});
    const file = join(t.home.importLogs, 'D_old.log');
    oldFile(file, 40);
    const first = await autoPruneLogs(t.store, { now: NOW, settings });
    assert.equal(first?.kinds.import.files, 1);
    oldFile(file, 40);
    assert.equal(await autoPruneLogs(t.store, { now: new Date(NOW.getTime() + 59 * 60_000), settings }), undefined);
    assert.ok(existsSync(file), 'not due: another process pruned within the hour');
    assert.equal((await autoPruneLogs(t.store, { now: new Date(NOW.getTime() + 60 * 60_000), settings }))?.kinds.import.files, 1);
    oldFile(file, 40);
    assert.equal(
      await autoPruneLogs(t.store, { now: new Date(NOW.getTime() + 9 * DAY), settings: { ...settings, pruneIntervalMinutes: 0 } }),
      undefined,
    );
    assert.ok(existsSync(file));
  } finally {
    await t.cleanup();
  }
});

test('log settings: environment over config.json over defaults; bad values are CONFIG_INVALID naming their source', () => {
  const messages = { messageRetentionDays: 90, messageRetentionCount: 100_000 };
  assert.deepEqual(logSettingsFrom({}, {}), {
    retentionDays: 30,
    retentionCount: 1000,
    ...messages,
    pruneIntervalMinutes: 60,
    format: 'text',
  });
  assert.deepEqual(
    logSettingsFrom({ logs: { retention_days: 7, retention_count: '50', format: 'json' } }, { SDS_LOG_RETENTION_DAYS: '14' }),
    { retentionDays: 14, retentionCount: 50, ...messages, pruneIntervalMinutes: 60, format: 'json' },
  );
  assert.deepEqual(
    logSettingsFrom({ logs: { message_retention_days: 21, message_retention_count: 500 } }, { SDS_MESSAGE_RETENTION_COUNT: '800' }),
    {
      retentionDays: 30,
      retentionCount: 1000,
      messageRetentionDays: 21,
      messageRetentionCount: 800,
      pruneIntervalMinutes: 60,
      format: 'text',
    },
  );
  const invalid = (file: Record<string, unknown>, env: NodeJS.ProcessEnv, where: RegExp) =>
    assert.throws(
      () => logSettingsFrom(file, env, '/h/config.json'),
      (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && where.test(e.message),
    );
  invalid({}, { SDS_LOG_RETENTION_DAYS: '0' }, /^SDS_LOG_RETENTION_DAYS must be a whole number from 1 to 36500; got "0"/);
  invalid({ logs: { retention_count: -3 } }, {}, /^logs\.retention_count in \/h\/config\.json must be/);
  invalid({}, { SDS_MESSAGE_RETENTION_DAYS: '0' }, /^SDS_MESSAGE_RETENTION_DAYS must be a whole number from 1 to 36500; got "0"/);
  invalid({ logs: { message_retention_count: 'all' } }, {}, /^logs\.message_retention_count in \/h\/config\.json must be/);
  invalid({ logs: { format: 'xml' } }, {}, /^logs\.format in \/h\/config\.json must be one of text, json/);
  invalid({}, { SDS_LOG_FORMAT: 'JSON' }, /^SDS_LOG_FORMAT must be one of text, json; got "JSON"/);
  invalid({ logs: { retention: 3 } }, {}, /^logs\.retention in \/h\/config\.json is not a setting/);
  invalid({ logs: [] }, {}, /^logs in \/h\/config\.json must be an object/);
});

test("the server's pruner prunes on its timer and logs what it removed", async () => {
  const t = await tempStore();
  try {
    oldFile(join(t.home.importLogs, 'D_old.log'), 40);
    let pruner: { stop(): Promise<void> } | undefined;
    const line = await new Promise<string>((resolve) => {
      pruner = startLogPruner(t.store, { log: resolve, now: () => NOW, checkEveryMs: 1, settings: logSettingsFrom({}, {}) });
    });
    await pruner!.stop();
    assert.match(line, /^logs pruned: import: 0 rows, 1 files \(100 bytes\); jobs: 0 rows/);
    assert.ok(!existsSync(join(t.home.importLogs, 'D_old.log')));
  } finally {
    await t.cleanup();
  }
});
