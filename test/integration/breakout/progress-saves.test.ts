/**
 * A breakout saves its job's progress after the first page with cases, at most once a second
 * after it, and at the end (run-job.ts, PROGRESS_SAVE_MS): not a store commit per page. The last
 * saved progress is the dictionary's whole count.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { datLines, popstanStore, POPSTAN, writeDat } from '../../helpers/breakout-helpers.js';
import { createJob } from '../../../src/core/breakout/jobs/jobs.js';
import { runJob } from '../../../src/core/breakout/jobs/run-job.js';
import type { JobProgress } from '../../../src/store/jobs-repo.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('progress is saved after the first page, then at most once a second, and at the end', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-progress-'));
  dirs.push(dir);
  const t = await popstanStore([writeDat(dir, 'popstan.dat', datLines())], { type: 'sqlite', file: join(dir, 'target.sqlite') });
  try {
    const saved: JobProgress[] = [];
    const saveProgress = t.store.jobs.saveProgress.bind(t.store.jobs);
    t.store.jobs.saveProgress = async (id, progress, warnings) => {
      saved.push(progress);
      await saveProgress(id, progress, warnings);
    };
    let pages = 0;
    const job = await createJob(t.store, { dictionaries: [POPSTAN], mode: 'full', threads: 1, overwrite: true, origin: 'cli' });
    const started = performance.now();
    const final = await runJob(t.store, job.id, { pageSize: 100, onProgress: () => (pages += 1) });
    const seconds = (performance.now() - started) / 1000;
    assert.equal(final.status, 'completed');
    const total = 4872;
    assert.equal(pages, 1 + Math.ceil(total / 100), 'onProgress is still told of every page');
    assert.deepEqual(saved[0], { dictionary: POPSTAN, processed: 0, total });
    assert.deepEqual(saved[1], { dictionary: POPSTAN, processed: 100, total }, 'the first page with cases is saved at once');
    assert.deepEqual(saved.at(-1), { dictionary: POPSTAN, processed: total, total });
    // Start, first page, end, and one for each second the run took.
    assert.ok(saved.length <= 3 + Math.ceil(seconds), `${saved.length} saves for ${pages} pages in ${seconds.toFixed(1)} s`);
  } finally {
    await t.cleanup();
  }
});
