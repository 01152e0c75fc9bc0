import { AppError } from '../../../shared/errors.js';
import { configSection, resolveWholeSettings, type WholeSettingRow } from '../../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../../shared/home-config.js';
import type { HomePaths } from '../../../shared/home.js';

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

/** Defaults: a dead node's job moves within about 45 s (lease plus a sweep), a live one renews three times per lease. */
const DEFAULTS: JobLeaseSettings = { leaseMs: 30_000, renewMs: 10_000, sweepMs: 15_000, maxTakeovers: 3 };

/** config.json key (in `jobs`), environment variable, field, and range of each setting. */
export const JOB_LEASE_SETTINGS: readonly WholeSettingRow<keyof JobLeaseSettings>[] = [
  ['lease_ms', 'SDS_JOB_LEASE_MS', 'leaseMs', 1000, 3_600_000],
  ['renew_ms', 'SDS_JOB_LEASE_RENEW_MS', 'renewMs', 100, 3_600_000],
  ['sweep_ms', 'SDS_JOB_SWEEP_MS', 'sweepMs', 100, 3_600_000],
  ['max_takeovers', 'SDS_JOB_MAX_TAKEOVERS', 'maxTakeovers', 0, 1000],
];

/**
 * The job lease settings in force: the environment over config.json's `jobs` object over the
 * defaults (30 s lease, renewed every 10 s, swept every 15 s, 3 takeovers). A renewal interval
 * not shorter than the lease would let a live node lose its job: CONFIG_INVALID.
 */
export function jobLeaseSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): JobLeaseSettings {
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
