import { configSection, resolveWholeSettings } from '../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';

/** Default free-space floor of the readiness check: 1 GiB (docs/http-api.md#health-and-readiness). */
const DEFAULT_MIN_FREE_BYTES = 1024 * 1024 * 1024;

/** Environment variable and config.json key (in the `health` object) of the floor. */
export const MIN_FREE_ENV = 'SDS_READY_MIN_FREE_BYTES';
const MIN_FREE_KEY = 'min_free_bytes';

/** The settings of the health endpoints. */
export interface HealthSettings {
  /** `GET /readyz` fails its `disk` check when the home's file system has less free space (bytes). */
  minFreeBytes: number;
}

/**
 * The health settings in force: SDS_READY_MIN_FREE_BYTES, else config.json `health.min_free_bytes`,
 * else 1 GiB. A value that is not a whole number of bytes, or an unknown key of `health`, is
 * CONFIG_INVALID naming where it came from.
 */
export function healthSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): HealthSettings {
  const fileName = homeConfigPath(home);
  const section = configSection(readHomeConfig(home), 'health', fileName, [MIN_FREE_KEY]);
  const out: HealthSettings = { minFreeBytes: DEFAULT_MIN_FREE_BYTES };
  resolveWholeSettings(out, [[MIN_FREE_KEY, MIN_FREE_ENV, 'minFreeBytes', 0, Infinity]], section, env, 'health', fileName, 'bytes');
  return out;
}
