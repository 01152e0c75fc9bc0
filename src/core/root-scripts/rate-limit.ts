import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { tokenFingerprint } from './static-token.js';

/**
 * Limit of the root scripts (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts):
 * requests per sliding window, per (token, client address).
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

const DEFAULT_RATE_LIMIT: RateLimit = { max: 60, windowMs: 60_000 };

/**
 * Counts one request of a (token, client address) pair against the sliding window, in the store
 * so that every serve process of the home counts together. Requests with a wrong or missing
 * token are counted too, under the token they present: the check runs before the token check.
 * Over the limit: `rate_limited` with `retry_after` (whole seconds, at least 1) in the details.
 */
export async function enforceRateLimit(
  store: Store,
  caller: { token: string; address: string },
  nowMs: number,
  limit: RateLimit = DEFAULT_RATE_LIMIT,
): Promise<void> {
  const key = `${tokenFingerprint(caller.token)}|${caller.address}`;
  const d = await store.rateLimit.hit(key, nowMs, limit.max, limit.windowMs);
  if (d.allowed) return;
  const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
  throw new AppError('rate_limited', `Too many requests. Retry after ${seconds} seconds.`, { retry_after: seconds });
}
