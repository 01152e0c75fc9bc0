/**
 * Every `sds serve` sweeps for breakout jobs whose lease is over (docs/breakout.md#leases): a job
 * held by a node that died is claimed by the server's sweep and handed to a job process of this
 * machine, which claims it from the server (`--handoff`) and runs it. The job here names a
 * dictionary that does not exist, so the process it is handed to ends it at once, failed with
 * DICTIONARY_NOT_FOUND: proof that a process of its own ran it. Runs on the run's store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../../src/http/serve.js';
import { currentNode } from '../../../src/shared/node-id.js';
import { tempStore } from '../../helpers/temp-home.js';
import { until } from '../../helpers/breakout-helpers.js';

test('sds serve takes over a job whose node died and hands it to a job process', { timeout: 60_000 }, async () => {
  const t = await tempStore();
  const server = await startServer({
    store: t.store,
    port: 0,
    webhookDispatcher: false,
    logPruner: false,
    config: { env: { ...process.env, SDS_JOB_SWEEP_MS: '100' }, log: () => {} },
  });
  try {
    await t.store.jobs.create({
      id: 'orphan',
      dictionaries: ['NO_SUCH_DICT'],
      mode: 'incremental',
      threads: 1,
      overwrite: false,
      origin: 'test',
    });
    // Held by a node of another host whose lease ran out a minute ago.
    const past = new Date(Date.now() - 60_000);
    await t.store.jobs.claim({ id: 'orphan', node: 'gone-host:1:0', pid: 1, now: past.toISOString(), leaseUntil: past.toISOString() });
    const final = await until(
      'the job to be taken over and ended',
      async () => {
        const j = (await t.store.jobs.get('orphan'))!;
        return j.status === 'failed' ? j : undefined;
      },
      30_000,
    );
    assert.equal(final.takeovers, 1);
    assert.equal(final.error!.code, 'DICTIONARY_NOT_FOUND');
    // The server's sweep claimed it, then the job process it spawned claimed it from the server.
    assert.notEqual(final.leaseNode, currentNode().id);
    assert.match(final.leaseNode!, new RegExp(`^${currentNode().host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${final.pid}:`));
  } finally {
    await server.close();
    await t.cleanup();
  }
});
