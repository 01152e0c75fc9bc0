import type { HomePaths } from '../../shared/home.js';
import { AppError } from '../../shared/errors.js';
import { readHomeConfig } from '../../shared/home-config.js';
import { checkTimeZone, DEFAULT_ZONE } from '../../scheduler/zone.js';

/** The scheduler's settings, each with a default (docs/scheduler.md, "Settings"). */
export interface SchedulerSettings {
  /** IANA zone the cron expressions are evaluated in. */
  zone: string;
  /** A breakout child still running after this many seconds is stopped (docs/scheduler.md#settings: 3600). */
  timeoutSeconds: number;
  /** After SIGTERM, how long a stopped child has before SIGKILL. */
  killGraceSeconds: number;
  /** Runs kept per schedule; older runs and their log files are deleted. */
  keepRuns: number;
  /**
   * A run watched by a process of another host is closed as failed once this long has passed
   * beyond its time limit and kill grace (docs/scheduler.md#several-nodes): its watcher died.
   */
  foreignRunGraceSeconds: number;
  /** The scheduler's clock. */
  now: () => Date;
}

const DEFAULTS = { timeoutSeconds: 3600, killGraceSeconds: 30, keepRuns: 100, foreignRunGraceSeconds: 300 } as const;

/** The scheduler's part of `<home>/config.json` (read by the shared readHomeConfig). */
interface HomeConfig {
  timezone?: unknown;
  scheduler?: { timeout_seconds?: unknown; kill_grace_seconds?: unknown; keep_runs?: unknown; foreign_run_grace_seconds?: unknown };
}

function wholeNumber(value: unknown, where: string, min: number, max: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    // A value given by the caller (the CLI's flag) is named by its setting; the CLI adds the flag.
    const given = where === 'the timeout';
    throw new AppError(
      'CONFIG_INVALID',
      `${where} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`,
      given ? { field: 'timeout', settings: ['timeout'] } : { field: where },
    );
  }
  return n;
}

/**
 * The moment SDS_NOW names, for tests and rehearsals: it makes a schedule due without waiting
 * for the wall clock. Only the scheduler reads it (docs/scheduler.md, "Testing aids").
 */
function clockFrom(env: NodeJS.ProcessEnv): () => Date {
  const fixed = env.SDS_NOW;
  if (fixed === undefined || fixed === '') return () => new Date();
  const t = Date.parse(fixed);
  if (!/^\d{4}-\d\d-\d\dT/.test(fixed) || Number.isNaN(t)) {
    throw new AppError('CONFIG_INVALID', `SDS_NOW must be an ISO 8601 time such as 2025-01-15T09:00:00Z; got "${fixed}"`, {
      field: 'SDS_NOW',
    });
  }
  return () => new Date(t);
}

/**
 * Resolves the scheduler's settings: a command-line flag, else the environment (SDS_TIMEZONE,
 * SDS_SCHEDULER_TIMEOUT, SDS_SCHEDULER_KILL_GRACE, SDS_SCHEDULER_KEEP_RUNS,
 * SDS_SCHEDULER_FOREIGN_RUN_GRACE), else the home's config.json (`timezone`,
 * `scheduler.timeout_seconds`, `scheduler.kill_grace_seconds`, `scheduler.keep_runs`,
 * `scheduler.foreign_run_grace_seconds`), else the default. Every value is checked, so a typo in a zone name
 * fails loudly instead of running schedules in the wrong zone.
 */
export function schedulerSettings(home: HomePaths, opts: { env?: NodeJS.ProcessEnv; timeoutSeconds?: unknown } = {}): SchedulerSettings {
  const env = opts.env ?? process.env;
  const config = readHomeConfig(home) as HomeConfig;
  const sch = typeof config.scheduler === 'object' && config.scheduler !== null ? config.scheduler : {};
  const pick = (flag: unknown, envName: string, configValue: unknown, configName: string): [unknown, string] | undefined => {
    if (flag !== undefined) return [flag, 'the timeout'];
    if (env[envName] !== undefined && env[envName] !== '') return [env[envName], envName];
    if (configValue !== undefined) return [configValue, `config.json ${configName}`];
    return undefined;
  };
  const num = (found: [unknown, string] | undefined, fallback: number, min: number, max: number) =>
    found ? wholeNumber(found[0], found[1], min, max) : fallback;

  let zone = DEFAULT_ZONE;
  if (env.SDS_TIMEZONE) zone = checkTimeZone(env.SDS_TIMEZONE, 'SDS_TIMEZONE');
  else if (config.timezone !== undefined) {
    if (typeof config.timezone !== 'string')
      throw new AppError('CONFIG_INVALID', 'config.json timezone must be a string such as "Europe/Paris"', { field: 'timezone' });
    zone = checkTimeZone(config.timezone, 'config.json timezone');
  }
  return {
    zone,
    timeoutSeconds: num(
      pick(opts.timeoutSeconds, 'SDS_SCHEDULER_TIMEOUT', sch.timeout_seconds, 'scheduler.timeout_seconds'),
      DEFAULTS.timeoutSeconds,
      1,
      7 * 24 * 3600,
    ),
    killGraceSeconds: num(
      pick(undefined, 'SDS_SCHEDULER_KILL_GRACE', sch.kill_grace_seconds, 'scheduler.kill_grace_seconds'),
      DEFAULTS.killGraceSeconds,
      0,
      3600,
    ),
    keepRuns: num(pick(undefined, 'SDS_SCHEDULER_KEEP_RUNS', sch.keep_runs, 'scheduler.keep_runs'), DEFAULTS.keepRuns, 1, 100_000),
    foreignRunGraceSeconds: num(
      pick(undefined, 'SDS_SCHEDULER_FOREIGN_RUN_GRACE', sch.foreign_run_grace_seconds, 'scheduler.foreign_run_grace_seconds'),
      DEFAULTS.foreignRunGraceSeconds,
      0,
      7 * 24 * 3600,
    ),
    now: clockFrom(env),
  };
}
