import { AppError } from '../../../shared/errors.js';

/** Default connect timeout of the target check a breakout start makes before answering (SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS). */
const DEFAULT_START_CHECK_CONNECT_TIMEOUT_MS = 3000;

/**
 * The connect timeout of the existing-tables check of `breakout start` (docs/breakout.md,
 * "Starting a job"): SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS, else 3000 ms. The start answers
 * within it even when the target accepts connections and never answers; a target that does not
 * answer in time fails the job with DB_CONNECTION_ERROR. A value that is not a whole number of
 * milliseconds is refused with CONFIG_INVALID, never replaced by the default.
 */
export function startCheckConnectTimeout(env: NodeJS.ProcessEnv = process.env): number {
  const name = 'SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS';
  const value = env[name];
  if (value === undefined || value === '') return DEFAULT_START_CHECK_CONNECT_TIMEOUT_MS;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (Number.isInteger(ms) && ms >= 1 && ms <= 600_000) return ms;
  throw new AppError('CONFIG_INVALID', `${name} must be a whole number of milliseconds from 1 to 600000; got "${value}"`, { field: name });
}
