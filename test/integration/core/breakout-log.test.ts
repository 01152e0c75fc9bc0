import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { AppError } from '../../../src/shared/errors.js';
import { JobLogWriter, listBreakoutLogs, logJobFailure, MAX_LOGGED_WARNINGS } from '../../../src/core/breakout/log.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';

async function withStore(fn: (store: Store, dict: string) => Promise<void>): Promise<void> {
  const t = await tempStore();
  try {
    const up = await uploadDictionary(t.store, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' });
    await fn(t.store, up.name);
  } finally {
    await t.cleanup();
  }
}

const job = (store: Store, id: string, dictionaries: string[]) =>
  store.jobs.create({ id, dictionaries, mode: 'full', threads: 1, overwrite: false, origin: 'test' });

test('a job writes started, one entry per further tenth of progress, finished and its end, newest first', async () => {
  await withStore(async (store, dict) => {
    await job(store, 'j1', [dict]);
    let t = Date.UTC(2025, 0, 1);
    const w = new JobLogWriter(store, 'j1', () => new Date((t += 1000)));
    await w.started(dict, 'started');
    for (let processed = 0; processed <= 1000; processed += 50) await w.progress(dict, processed, 1000);
    await w.finished(dict, 'finished');
    await w.ended([dict], 'info', 'completed');
    const { logs } = await listBreakoutLogs(store, { dictionary: dict });
    assert.deepEqual(logs.map((e) => [e.message.replace(/^.*\((\d+%)\)$/, '$1'), e.progress]).reverse(), [
      ['started', '0%'],
      ...[10, 20, 30, 40, 50, 60, 70, 80, 90].map((p) => [`${p}%`, `${p}%`]),
      ['finished', '100%'],
      ['completed', '100%'],
    ]);
    assert.equal(logs[0]!.timestamp, new Date(t).toISOString());
    assert.ok(logs.every((e) => e.level === 'info' && e.dictionary === dict));
  });
});

test('warnings: the first 100 of a job, then one line pointing at the job log file', async () => {
  await withStore(async (store, dict) => {
    await job(store, 'j2', [dict]);
    const w = new JobLogWriter(store, 'j2');
    await w.started(dict, 'started');
    await w.progress(dict, 45, 100);
    for (let i = 1; i <= 250; i++) await w.warning(dict, `warning ${i}`);
    const warns = (await listBreakoutLogs(store, { limit: 1000 })).logs.filter((e) => e.level === 'warn');
    assert.equal(warns.length, MAX_LOGGED_WARNINGS + 1);
    assert.match(warns[0]!.message, /more than 100 warnings in job j2.*job-j2\.log/);
    assert.equal(warns.at(-1)!.message, 'warning 1');
    assert.ok(warns.every((e) => e.progress === '45%'));
  });
});

test('a job that fails before running is logged as an error for each of its dictionaries, where it stood', async () => {
  await withStore(async (store, dict) => {
    await job(store, 'j3', [dict]);
    await logJobFailure(
      store,
      { id: 'j3', dictionaries: [dict], progress: { dictionary: dict, processed: 30, total: 120 } },
      { code: 'BRK-002', message: 'gone', details: '' },
    );
    assert.deepEqual(
      (await listBreakoutLogs(store)).logs.map(({ level, dictionary, message, progress }) => ({ level, dictionary, message, progress })),
      [{ level: 'error', dictionary: dict, message: 'job j3 failed: BRK-002: gone', progress: '25%' }],
    );
  });
});

test('listBreakoutLogs: limit 1 to 1000 (default 100), an unknown dictionary is DICTIONARY_NOT_FOUND', async () => {
  await withStore(async (store, dict) => {
    await job(store, 'j4', [dict]);
    const w = new JobLogWriter(store, 'j4');
    for (let i = 0; i < 150; i++) await w.started(dict, `entry ${i}`);
    assert.equal((await listBreakoutLogs(store)).logs.length, 100);
    assert.equal((await listBreakoutLogs(store)).logs[0]!.message, 'entry 149');
    assert.equal((await listBreakoutLogs(store, { limit: '7' })).logs.length, 7);
    assert.equal((await listBreakoutLogs(store, { limit: 1000 })).logs.length, 150);
    for (const limit of ['0', '1001', '1.5', 'x', -1]) {
      await assert.rejects(
        () => listBreakoutLogs(store, { limit }),
        (e: unknown) => e instanceof AppError && e.code === 'USAGE',
      );
    }
    await assert.rejects(
      () => listBreakoutLogs(store, { dictionary: 'NOPE' }),
      (e: unknown) => e instanceof AppError && e.code === 'DICTIONARY_NOT_FOUND',
    );
    assert.equal(await store.breakoutLog.prune(10), 140);
    assert.deepEqual((await listBreakoutLogs(store, { limit: 1000 })).logs.map((e) => e.message).at(-1), 'entry 140');
  });
});
