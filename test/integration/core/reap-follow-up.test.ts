/**
 * A job whose process died is failed by the reaper like any other end of a job, so the follow-up
 * that incoming case events queued behind it is started then, not left waiting for the next event.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { FOLLOW_UP_ORIGIN, reapDeadJobs } from '../../../src/core/breakout/jobs/follow-up.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';

const incremental = (dictionary: string, origin: string) => ({
  id: randomUUID(),
  dictionaries: [dictionary],
  mode: 'incremental' as const,
  threads: 1,
  overwrite: false,
  origin,
});

test('reaping a dead job starts the follow-up queued behind it, once', async () => {
  const t = await tempStore();
  try {
    const { store } = t;
    const dcf = fixture('popstan-census.text.dcf');
    const dict = await uploadDictionary(store, { source: readFileSync(dcf), label: 'popstan', file: dcf });
    const id = (await store.dictionaries.find(dict.name))!.id;

    const first = await store.jobs.create(incremental(dict.name, 'webhook'));
    // The pid of a process that has already exited: the job's process is gone.
    await store.jobs.setPid(first.id, spawnSync(process.execPath, ['-e', '']).pid!);
    const queued = await store.followUps.request(id, incremental(dict.name, 'webhook'), new Date().toISOString());
    assert.ok('queued' in queued, 'a job of the dictionary is unfinished, so the event is queued');
    assert.equal(await store.followUps.pending(id), 1);

    await reapDeadJobs(store, Date.now(), { spawn: false });
    const failed = (await store.jobs.get(first.id))!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'BRK-002');
    const followUps = await store.jobs.unfinished();
    assert.equal(followUps.length, 1);
    assert.equal(followUps[0]!.origin, FOLLOW_UP_ORIGIN);
    assert.deepEqual(followUps[0]!.dictionaries, [dict.name]);
    assert.equal(await store.followUps.pending(id), 0);
    assert.ok(
      (await store.breakoutLog.newest({ limit: 10 })).some((e) => e.message.includes(`follow-up incremental job ${followUps[0]!.id}`)),
    );

    // The follow-up is young and pending: a second reap leaves it, and starts nothing more.
    await reapDeadJobs(store, Date.now(), { spawn: false });
    assert.deepEqual(
      (await store.jobs.unfinished()).map((j) => j.id),
      [followUps[0]!.id],
    );
  } finally {
    await t.cleanup();
  }
});
