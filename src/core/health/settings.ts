import { configSection, resolveWholeSettings } from '../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';

/** Default free-space floor of the readiness check: 1 GiB (docs/http-api.md#health-and-readiness). */
const DEFAULT_MIN_FREE_BYTES = 1024 * 1024 * 1024;

/** Environment variable and config.json key (in the `health` object) of the floor. */
export const MIN_FREE_ENV = 'SDS_READY_MIN_FREE_BYTES';
const MIN_FREE_KEY = 'min_free_bytes';

/** Default time a `GET /readyz` answer is reused: 1 s (docs/http-api.md#health-and-readiness). */
const DEFAULT_READY_CACHE_MS = 1000;

/** Environment variable and config.json key (in the `health` object) of that time. */
export const READY_CACHE_ENV = 'SDS_READY_CACHE_MS';
const READY_CACHE_KEY = 'ready_cache_ms';

/** The settings of the health endpoints. */
export interface HealthSettings {
  /** `GET /readyz` fails its `disk` check when the home's file system has less free space (bytes). */
  minFreeBytes: number;
  /**
   * How long a readiness answer is reused, in ms (0: never). The route is public and each check
   * commits a write, so a flood of probes would otherwise queue behind and slow real writes.
   */
  readyCacheMs: number;
}

/**
 * The health settings in force: SDS_READY_MIN_FREE_BYTES, else config.json `health.min_free_bytes`,
 * else 1 GiB; SDS_READY_CACHE_MS, else `health.ready_cache_ms`, else 1000 (0 to 60,000). A value that is not a whole number of bytes, or an unknown key of `health`, is
 * CONFIG_INVALID naming where it came from.
 */
export function healthSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): HealthSettings {
  const fileName = homeConfigPath(home);
  const section = configSection(readHomeConfig(home), 'health', fileName, [MIN_FREE_KEY, READY_CACHE_KEY]);
  const out: HealthSettings = { minFreeBytes: DEFAULT_MIN_FREE_BYTES, readyCacheMs: DEFAULT_READY_CACHE_MS };
  resolveWholeSettings(out, [[MIN_FREE_KEY, MIN_FREE_ENV, 'minFreeBytes', 0, Infinity]], section, env, 'health', fileName, 'bytes');
  resolveWholeSettings(out, [[READY_CACHE_KEY, READY_CACHE_ENV, 'readyCacheMs', 0, 60_000]], section, env, 'health', fileName, 'ms');
  return out;
}
