/**
 * Core run from source starts its background work from source too: the job process of a job
 * started through core is `node --import <tsx> src/entry/run-job.ts`, not bin/sds on dist/
 * (docs/decisions.md, "Process model"). The target never answers, so the job stays running
 * long enough to read its command line, then is cancelled.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { popstanStore, POPSTAN, until } from '../../helpers/breakout-helpers.js';
import { silentServer } from '../dialects/fake-servers.js';
import { currentNode } from '../../../src/shared/node-id.js';
import { cancelJob, jobStatus, processAlive, startBreakout } from '../../../src/core/breakout/index.js';

const ENTRY = fileURLToPath(new URL('../../../src/entry/run-job.ts', import.meta.url));

let hang: Awaited<ReturnType<typeof silentServer>> | undefined;
after(async () => {
  await hang?.close();
});

test('a job started through core from source runs src/entry/run-job.ts under tsx', { timeout: 60_000 }, async () => {
  hang = await silentServer();
  const t = await popstanStore([], { type: 'postgresql', url: `postgresql://sds@127.0.0.1:${hang.port}/sds` });
  try {
    // overwrite: no existing-tables check in this process, so the connect happens in the job's.
    const start = await startBreakout(t.store, { dictionaries: [POPSTAN], overwrite: true });
    assert.equal(start.status, 'started');
    // Running: the entry point has loaded and is stuck connecting to the silent target.
    const pid = await until('the job to run', async () => {
      const j = (await t.store.jobs.get(start.job_id))!;
      assert.ok(
        j.status === 'pending' || j.status === 'running',
        `job ended early: ${JSON.stringify(await jobStatus(t.store, start.job_id))}`,
      );
      return j.status === 'running' && j.pid !== null ? j.pid : undefined;
    });
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    assert.equal(argv[0], process.execPath);
    assert.equal(argv[1], '--import');
    assert.match(argv[2]!, /\/tsx\/dist\/loader\.mjs$/);
    // Handed over by the node that started it, which reserved the job for it (docs/breakout.md#leases).
    assert.deepEqual(argv.slice(3), [ENTRY, '--home', t.home.root, start.job_id, '--handoff', currentNode().id]);

    await cancelJob(t.store, start.job_id);
    await until('the job process to end', () => !processAlive(pid));
    assert.equal((await jobStatus(t.store, start.job_id)).status, 'cancelled');
  } finally {
    await t.cleanup();
  }
});
