import { AppError } from '../../shared/errors.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';

/** Thresholds of the failed-login throttle of POST /api/token. Durations in milliseconds. */
export interface LoginThrottlePolicy {
  /** Failures of one username from one address, within the window, that start a block. */
  maxFailuresPerUser: number;
  /** Failures from one address over all usernames, within the window, that start a block. */
  maxFailuresPerAddress: number;
  /** Failures older than this are forgotten. */
  windowMs: number;
  /** Length of the first block; each further block of the same counter doubles it. */
  blockMs: number;
  /** Longest block. */
  maxBlockMs: number;
  /**
   * Attempts from one address, on every node, that may wait at once for the attempts in flight
   * on their counters to settle; one more is answered 429 with `Retry-After: 1` (not a block).
   */
  maxWaiting: number;
  /**
   * An attempt under way that its node has not touched for this long is taken for one whose node
   * died: it no longer holds others waiting (its charges stay, as failures).
   */
  attemptTimeoutMs: number;
  /**
   * How often a waiting attempt looks again for attempts settled on other nodes (those of its
   * own node wake it at once).
   */
  waitRecheckMs: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
  windowMs: 15 * 60_000,
  blockMs: 60_000,
  maxBlockMs: 3600_000,
  maxWaiting: 200,
  attemptTimeoutMs: 60_000,
  waitRecheckMs: 250,
};

/** Settings of the token endpoint's guard, as read from the home's config.json and the environment. */
export interface LoginGuardSettings {
  throttle: LoginThrottlePolicy;
  /** Peer addresses whose X-Forwarded-For is believed (reverse proxies); empty by default. */
  trustedProxies: string[];
}

/** config.json key, environment variable, policy field, and unit factor of each threshold. */
const FIELDS = [
  ['max_failures_per_user', 'SDS_LOGIN_MAX_FAILURES_PER_USER', 'maxFailuresPerUser', 1],
  ['max_failures_per_address', 'SDS_LOGIN_MAX_FAILURES_PER_ADDRESS', 'maxFailuresPerAddress', 1],
  ['window_seconds', 'SDS_LOGIN_WINDOW_SECONDS', 'windowMs', 1000],
  ['block_seconds', 'SDS_LOGIN_BLOCK_SECONDS', 'blockMs', 1000],
  ['max_block_seconds', 'SDS_LOGIN_MAX_BLOCK_SECONDS', 'maxBlockMs', 1000],
  ['max_waiting', 'SDS_LOGIN_MAX_WAITING', 'maxWaiting', 1],
  ['attempt_timeout_seconds', 'SDS_LOGIN_ATTEMPT_TIMEOUT_SECONDS', 'attemptTimeoutMs', 1000],
  ['wait_recheck_ms', 'SDS_LOGIN_WAIT_RECHECK_MS', 'waitRecheckMs', 1],
] as const;

/** config.json key (in `login_throttle`), environment variable, field and unit factor of each threshold (for `sds config`). */
export const LOGIN_THROTTLE_SETTINGS: ReadonlyArray<readonly [string, string, keyof LoginThrottlePolicy, number]> = FIELDS;

const MAX_VALUE = 10_000_000;

function whole(value: unknown, where: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_VALUE) {
    throw new AppError('CONFIG_INVALID', `${where} must be a whole number from 1 to ${MAX_VALUE}, got ${JSON.stringify(value)}`, {
      field: where,
    });
  }
  return n;
}

/**
 * Builds the login guard settings: environment over the `login_throttle` and `trusted_proxies`
 * entries of config.json, over the defaults. A value that is not a positive whole number is a
 * CONFIG_INVALID error naming where it came from.
 */
export function loginGuardSettings(file: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName = 'config.json'): LoginGuardSettings {
  const section = file.login_throttle ?? {};
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new AppError('CONFIG_INVALID', `login_throttle in ${fileName} must be an object`, { field: 'login_throttle' });
  }
  const known = new Set<string>(FIELDS.map((f) => f[0]));
  for (const k of Object.keys(section)) {
    if (!known.has(k))
      throw new AppError('CONFIG_INVALID', `login_throttle.${k} in ${fileName} is not a setting; known: ${[...known].join(', ')}`, {
        field: k,
      });
  }
  const throttle = { ...DEFAULT_LOGIN_THROTTLE };
  for (const [key, envName, field, factor] of FIELDS) {
    const fromEnv = env[envName];
    const fromFile = (section as Record<string, unknown>)[key];
    if (fromEnv !== undefined && fromEnv !== '') throttle[field] = whole(fromEnv, envName) * factor;
    else if (fromFile !== undefined) throttle[field] = whole(fromFile, `login_throttle.${key} in ${fileName}`) * factor;
  }
  if (throttle.maxBlockMs < throttle.blockMs) {
    throw new AppError(
      'CONFIG_INVALID',
      `max_block_seconds (${throttle.maxBlockMs / 1000}) must not be shorter than block_seconds (${throttle.blockMs / 1000})`,
      {
        field: 'max_block_seconds',
      },
    );
  }
  return { throttle, trustedProxies: trustedProxies(file.trusted_proxies, env.SDS_TRUSTED_PROXIES, fileName) };
}

function trustedProxies(fromFile: unknown, fromEnv: string | undefined, fileName: string): string[] {
  if (fromEnv !== undefined && fromEnv !== '')
    return fromEnv
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (fromFile === undefined) return [];
  if (!Array.isArray(fromFile) || !fromFile.every((x) => typeof x === 'string' && x.trim() !== '')) {
    throw new AppError('CONFIG_INVALID', `trusted_proxies in ${fileName} must be an array of IP addresses`, { field: 'trusted_proxies' });
  }
  return fromFile.map((x: string) => x.trim());
}

/** The login guard settings of a home: its config.json and the environment `env`. */
export function loadLoginGuardSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): LoginGuardSettings {
  return loginGuardSettings(readHomeConfig(home), env, homeConfigPath(home));
}
