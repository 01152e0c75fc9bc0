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

test('reaping a dead job starts the follow-up queued behind it, once', () => {
  const t = tempStore();
  try {
    const { store } = t;
    const dcf = fixture('popstan-census.text.dcf');
    const dict = uploadDictionary(store, { source: readFileSync(dcf), label: 'popstan', file: dcf });
    const id = store.dictionaries.find(dict.name)!.id;

    const first = store.jobs.create(incremental(dict.name, 'webhook'));
    // The pid of a process that has already exited: the job's process is gone.
    store.jobs.setPid(first.id, spawnSync(process.execPath, ['-e', '']).pid!);
    const queued = store.followUps.request(id, incremental(dict.name, 'webhook'), new Date().toISOString());
    assert.ok('queued' in queued, 'a job of the dictionary is unfinished, so the event is queued');
    assert.equal(store.followUps.pending(id), 1);

    reapDeadJobs(store, Date.now(), { spawn: false });
    const failed = store.jobs.get(first.id)!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'BRK-002');
    const followUps = store.jobs.unfinished();
    assert.equal(followUps.length, 1);
    assert.equal(followUps[0]!.origin, FOLLOW_UP_ORIGIN);
    assert.deepEqual(followUps[0]!.dictionaries, [dict.name]);
    assert.equal(store.followUps.pending(id), 0);
    assert.ok(store.breakoutLog.newest({ limit: 10 }).some((e) => e.message.includes(`follow-up incremental job ${followUps[0]!.id}`)));

    // The follow-up is young and pending: a second reap leaves it, and starts nothing more.
    reapDeadJobs(store, Date.now(), { spawn: false });
    assert.deepEqual(
      store.jobs.unfinished().map((j) => j.id),
      [followUps[0]!.id],
    );
  } finally {
    t.cleanup();
  }
});
