/**
 * What makes a dictionary's breakout "interrupted" (docs/breakout.md#interrupted-breakouts), over a
 * real store and a real SQLite target: a load stopped after a page (cancelled), a job whose
 * process died while loading (failed, BRK-002), a later failure, the resume that clears it, a
 * drop of the tables that ends it; and the state the metrics give each time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { breakoutInterruption, breakoutStatus, breakoutTables, dropBreakoutTables } from '../../../src/core/breakout/index.js';
import { metrics } from '../../../src/core/metrics/index.js';
import { tempStore } from '../../helpers/temp-home.js';
import { seedPopstan } from '../../helpers/http-server.js';

test('a stopped load is interrupted until a run finishes it; a killed one reads failed; dropping the tables ends it', async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  const t = await tempStore();
  try {
    const { store } = t;
    const dict = await seedPopstan(store);
    const row = (await store.dictionaries.find(dict))!;
    const active = await store.cases.countActive(row.id);
    await setTarget(store, dict, { type: 'sqlite', file: join(t.home.root, 'target.sqlite') });
    assert.equal(await breakoutInterruption(store, row), null, 'never run: nothing interrupted');
    assert.equal((await metrics(store)).breakout_status[dict], 'not_started');

    // Stopped once its first page (of 2,000 cases) is in: cancelled after the pages it had taken
    // (the next one is read ahead), the cursor over them.
    const stop = new AbortController();
    const first = await runBreakoutNow(
      store,
      { dictionary: dict, overwrite: true },
      { signal: stop.signal, onProgress: (_d, processed) => processed > 0 && stop.abort() },
    );
    assert.equal(first.status, 'cancelled');
    const done = first.status === 'cancelled' ? first.result.total_cases : 0;
    assert.ok(done > 0 && done < active && done % 2000 === 0, `stopped half way: ${done}`);
    const stopped = (await breakoutInterruption(store, row))!;
    assert.deepEqual(
      { ...stopped, stopped_at: null },
      {
        job_id: first.job_id,
        job_status: 'cancelled',
        stopped_at: null,
        processed_cases: done,
        total_cases: active,
        message: `interrupted at ${done.toLocaleString('en-US')} of ${active.toLocaleString('en-US')} cases, resume with an incremental breakout (process-cases-by-dict ${dict}, or the trigger in mode selective)`,
      },
    );
    assert.equal(stopped.stopped_at, (await store.jobs.get(first.job_id))!.finishedAt);
    let m = await metrics(store);
    assert.equal(m.breakout_status[dict], 'interrupted');
    assert.equal(m.sync_rate_by_dictionary[dict], `${(Math.floor((done * 1000) / active) / 10).toFixed(1)}%`);
    assert.deepEqual(m.breakout_interrupted[dict], stopped);
    assert.deepEqual((await breakoutTables(store, dict)).interrupted, stopped);
    assert.deepEqual((await breakoutStatus(store, { dictionary: dict })).data[0]!.breakout_interrupted, stopped);

    // A job that begins loading and whose process dies: reaped as failed, still interrupted.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const killed = await store.jobs.create({
      id: randomUUID(),
      dictionaries: [dict],
      mode: 'incremental',
      threads: 1,
      overwrite: false,
      origin: 'cli',
    });
    assert.ok(await store.jobs.markRunning(killed.id, process.pid));
    await store.breakoutState.startLoad(row.id, killed.id);
    assert.equal(await breakoutInterruption(store, row), null, 'a load still running is no interruption');
    assert.equal((await metrics(store)).breakout_status[dict], 'in_progress');
    await store.jobs.setPid(killed.id, dead);
    m = await metrics(store);
    assert.equal((await store.jobs.get(killed.id))!.status, 'failed');
    assert.equal(m.breakout_status[dict], 'failed');
    assert.equal(m.breakout_interrupted[dict]!.job_id, killed.id);
    assert.equal(m.breakout_interrupted[dict]!.job_status, 'failed');
    assert.equal(m.breakout_interrupted[dict]!.processed_cases, done);

    // The incremental run resumes from the cursor, applies the rest and clears it.
    const rest = await runBreakoutNow(store, { dictionary: dict });
    assert.equal(rest.status, 'completed');
    assert.equal(rest.status === 'completed' && rest.result.total_cases, active - done);
    assert.equal(await breakoutInterruption(store, row), null);
    m = await metrics(store);
    assert.equal(m.breakout_status[dict], 'completed');
    assert.equal(m.sync_rate_by_dictionary[dict], '100.0%');
    assert.equal(m.breakout_interrupted[dict], null);

    // Interrupted again, then the tables are dropped: nothing is left to resume.
    const again = new AbortController();
    const second = await runBreakoutNow(
      store,
      { dictionary: dict, overwrite: true },
      { signal: again.signal, onProgress: (_d, processed) => processed > 0 && again.abort() },
    );
    assert.equal(second.status, 'cancelled');
    assert.equal((await metrics(store)).breakout_status[dict], 'interrupted');
    await dropBreakoutTables(store, dict);
    assert.equal(await breakoutInterruption(store, row), null);
    assert.equal((await metrics(store)).breakout_interrupted[dict], null);
    assert.equal((await metrics(store)).sync_rate_by_dictionary[dict], '0.0%');
  } finally {
    await t.cleanup();
  }
});
