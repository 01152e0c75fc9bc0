/**
 * The job lease settings (docs/limits.md#breakout-job-leases): defaults, config.json's `jobs`
 * object, the environment over it, and the values refused with CONFIG_INVALID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobLeaseSettings } from '../../../src/core/breakout/jobs/lease-settings.js';
import { tempDir } from '../../helpers/temp-home.js';

test('job leases: 30 s renewed every 10 s, swept every 15 s, 3 takeovers; config.json and the environment change them', () => {
  const home = tempDir();
  try {
    const cursor = { cursorSavePages: 50, cursorSaveMs: 1000 };
    assert.deepEqual(jobLeaseSettings(home, {}), { leaseMs: 30_000, renewMs: 10_000, sweepMs: 15_000, maxTakeovers: 3, ...cursor });
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ jobs: { lease_ms: 60_000, renew_ms: 20_000, max_takeovers: 0 } }));
    assert.deepEqual(jobLeaseSettings(home, {}), { leaseMs: 60_000, renewMs: 20_000, sweepMs: 15_000, maxTakeovers: 0, ...cursor });
    assert.deepEqual(jobLeaseSettings(home, { SDS_JOB_LEASE_MS: '5000', SDS_JOB_LEASE_RENEW_MS: '1000', SDS_JOB_SWEEP_MS: '2500' }), {
      leaseMs: 5000,
      renewMs: 1000,
      sweepMs: 2500,
      maxTakeovers: 0,
      ...cursor,
    });
    const invalid = (env: NodeJS.ProcessEnv, message: RegExp) =>
      assert.throws(
        () => jobLeaseSettings(home, env),
        (e: Error & { code?: string }) => e.code === 'CONFIG_INVALID' && message.test(e.message),
      );
    invalid({ SDS_JOB_LEASE_MS: '20000' }, /renewal \(20000 ms\) must be shorter than the lease \(20000 ms\)/);
    invalid({ SDS_JOB_LEASE_MS: '999' }, /SDS_JOB_LEASE_MS must be a whole number from 1000 to 3600000/);
    invalid({ SDS_JOB_MAX_TAKEOVERS: 'many' }, /SDS_JOB_MAX_TAKEOVERS/);
    invalid({ SDS_JOB_CURSOR_SAVE_PAGES: '0' }, /SDS_JOB_CURSOR_SAVE_PAGES must be a whole number from 1 to 1000000/);
    // How often a running job saves its cursor: config.json's `jobs` too, the environment over it.
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ jobs: { cursor_save_pages: 1, cursor_save_ms: 0 } }));
    assert.deepEqual(
      [jobLeaseSettings(home, {}), jobLeaseSettings(home, { SDS_JOB_CURSOR_SAVE_PAGES: '200', SDS_JOB_CURSOR_SAVE_MS: '5000' })].map(
        (s) => [s.cursorSavePages, s.cursorSaveMs],
      ),
      [
        [1, 0],
        [200, 5000],
      ],
    );
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ jobs: { lease_seconds: 30 } }));
    invalid({}, /jobs\.lease_seconds in .* is not a setting/);
  } finally {
    home.cleanup();
  }
});
