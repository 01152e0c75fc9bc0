import { configSection, resolveWholeSettings, type WholeSettingRow } from '../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';
import { availableParallelism } from 'node:os';
import { AppError } from '../../shared/errors.js';

/** Most workers one `sds serve` starts (docs/production.md#workers): past it, a typo rather than a machine. */
export const MAX_WORKERS = 64;

/** Most upload check threads per server process (docs/production.md#check-threads). */
export const MAX_CHECK_THREADS = 64;

/** How `sds serve` spreads over the cores of its machine (docs/production.md#workers). */
export interface WorkerSettings {
  /** Server processes, each with every route; 1 is the single process of before. */
  count: number;
  /** A worker that ended unasked is restarted at most this many times within `restartWindowMs`; one more ends the server. */
  restartLimit: number;
  /** The window the restarts are counted in, in ms. */
  restartWindowMs: number;
  /** Wait before the first restart, in ms; doubled for each further restart in the window. */
  restartDelayMs: number;
  /**
   * How long a scrape of `/metrics` waits for the other workers' metrics, in ms; one that has not
   * answered by then is left out of that scrape (docs/metrics.md#workers).
   */
  metricsTimeoutMs: number;
  /**
   * Threads per server process that check sync uploads against their dictionary beside the main
   * thread (docs/production.md#check-threads); 0 checks on the main thread.
   */
  checkThreads: number;
}

/** The config.json keys (in `workers`), environment variables and bounds of each setting. */
export const WORKER_SETTINGS = [
  ['count', 'SDS_WORKERS', 'count', 1, MAX_WORKERS],
  ['restart_limit', 'SDS_WORKER_RESTART_LIMIT', 'restartLimit', 0, 1000],
  ['restart_window_ms', 'SDS_WORKER_RESTART_WINDOW_MS', 'restartWindowMs', 1, 86_400_000],
  ['restart_delay_ms', 'SDS_WORKER_RESTART_DELAY_MS', 'restartDelayMs', 0, 600_000],
  ['metrics_timeout_ms', 'SDS_WORKER_METRICS_TIMEOUT_MS', 'metricsTimeoutMs', 1, 60_000],
  ['check_threads', 'SDS_CHECK_THREADS', 'checkThreads', 0, MAX_CHECK_THREADS],
] as const satisfies readonly WholeSettingRow<keyof WorkerSettings>[];

/**
 * The worker settings in force: the `--workers` flag (`flag`), else SDS_WORKERS, else config.json
 * `workers.count`, else 1 (docs/decisions.md, "Workers on one machine (issue 29)": why not every
 * core yet); the restart
 * policy from SDS_WORKER_RESTART_* or `workers.restart_*`, else 5 restarts a minute starting at
 * 1 s; the metrics wait from SDS_WORKER_METRICS_TIMEOUT_MS or `workers.metrics_timeout_ms`,
 * else 1000 ms; the check threads from `threadsFlag` (`--check-threads`), else SDS_CHECK_THREADS, else
 * `workers.check_threads`, else 1 on a machine of two cores or more and 0 on one of a single
 * core (docs/decisions.md, "Upload checks in threads"). A value out of range is CONFIG_INVALID
 * naming where it came from.
 */
export function workerSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env, flag?: number, threadsFlag?: number): WorkerSettings {
  const fileName = homeConfigPath(home);
  const section = configSection(
    readHomeConfig(home),
    'workers',
    fileName,
    WORKER_SETTINGS.map((r) => r[0]),
  );
  const out: WorkerSettings = {
    count: 1,
    restartLimit: 5,
    restartWindowMs: 60_000,
    restartDelayMs: 1000,
    metricsTimeoutMs: 1000,
    checkThreads: availableParallelism() > 1 ? 1 : 0,
  };
  resolveWholeSettings(out, WORKER_SETTINGS, section, env, 'workers', fileName);
  if (flag !== undefined) out.count = flag;
  if (threadsFlag !== undefined) out.checkThreads = threadsFlag;
  return out;
}

/**
 * Commander parser of `--workers <n>`: a whole number from 1 to MAX_WORKERS, else USAGE with the
 * value as typed.
 */
export function workersFlag(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_WORKERS))
    throw new AppError('USAGE', `--workers must be a whole number from 1 to ${MAX_WORKERS} (server processes), got "${value}"`, {
      field: '--workers',
    });
  return n;
}

/**
 * Commander parser of `--check-threads <n>`: a whole number from 0 to MAX_CHECK_THREADS, else
 * USAGE with the value as typed.
 */
export function checkThreadsFlag(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= MAX_CHECK_THREADS))
    throw new AppError(
      'USAGE',
      `--check-threads must be a whole number from 0 to ${MAX_CHECK_THREADS} (threads per server process), got "${value}"`,
      {
        field: '--check-threads',
      },
    );
  return n;
}
