import { AppError } from '../../../shared/errors.js';
import { configSection, resolveWholeSettings, type WholeSettingRow } from '../../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../../shared/home-config.js';
import type { HomePaths } from '../../../shared/home.js';
import { CURSOR_SAVING } from '../../../breakout/cursor-saver.js';

/** The lease of a breakout job and how it is kept and checked (docs/breakout.md#leases, docs/limits.md). */
export interface JobLeaseSettings {
  /** How long a claim holds without renewal: a node silent for longer is taken to be dead. */
  leaseMs: number;
  /** How often the running node renews its lease (less than `leaseMs`). */
  renewMs: number;
  /** How often each `sds serve` looks for jobs whose lease is over. */
  sweepMs: number;
  /** Takeovers after which a job whose nodes keep dying is failed (BRK-002) instead of taken over again. */
  maxTakeovers: number;
}

/** All of config.json's `jobs`: the lease, and how often a running job saves the cursor a takeover resumes from. */
export interface JobSettings extends JobLeaseSettings {
  /** Pages committed after which the store cursor is saved (after the target is made durable). */
  cursorSavePages: number;
  /** Milliseconds after the last save past which the next committed page saves the cursor. */
  cursorSaveMs: number;
}

/**
 * Defaults: a dead node's job moves within about 45 s (lease plus a sweep), a live one renews
 * three times per lease; the cursor is saved every 50 pages or 1 s (breakout/cursor-saver.ts).
 */
const DEFAULTS: JobSettings = {
  leaseMs: 30_000,
  renewMs: 10_000,
  sweepMs: 15_000,
  maxTakeovers: 3,
  cursorSavePages: CURSOR_SAVING.everyPages,
  cursorSaveMs: CURSOR_SAVING.everyMs,
};

/** config.json key (in `jobs`), environment variable, field, and range of each setting. */
export const JOB_LEASE_SETTINGS: readonly WholeSettingRow<keyof JobSettings>[] = [
  ['lease_ms', 'SDS_JOB_LEASE_MS', 'leaseMs', 1000, 3_600_000],
  ['renew_ms', 'SDS_JOB_LEASE_RENEW_MS', 'renewMs', 100, 3_600_000],
  ['sweep_ms', 'SDS_JOB_SWEEP_MS', 'sweepMs', 100, 3_600_000],
  ['max_takeovers', 'SDS_JOB_MAX_TAKEOVERS', 'maxTakeovers', 0, 1000],
  ['cursor_save_pages', 'SDS_JOB_CURSOR_SAVE_PAGES', 'cursorSavePages', 1, 1_000_000],
  ['cursor_save_ms', 'SDS_JOB_CURSOR_SAVE_MS', 'cursorSaveMs', 0, 3_600_000],
];

/**
 * The job lease settings in force: the environment over config.json's `jobs` object over the
 * defaults (30 s lease, renewed every 10 s, swept every 15 s, 3 takeovers, the cursor saved
 * every 50 pages or 1 s). A renewal interval
 * not shorter than the lease would let a live node lose its job: CONFIG_INVALID.
 */
export function jobLeaseSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): JobSettings {
  const fileName = homeConfigPath(home);
  const section = configSection(
    readHomeConfig(home),
    'jobs',
    fileName,
    JOB_LEASE_SETTINGS.map(([key]) => key),
  );
  const out = { ...DEFAULTS };
  resolveWholeSettings(out, JOB_LEASE_SETTINGS, section, env, 'jobs', fileName);
  if (out.renewMs >= out.leaseMs) {
    throw new AppError('CONFIG_INVALID', `the job lease renewal (${out.renewMs} ms) must be shorter than the lease (${out.leaseMs} ms)`, {
      field: 'jobs.renew_ms',
    });
  }
  return out;
}
