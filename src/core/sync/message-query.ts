import { AppError } from '../../shared/errors.js';
import type { SyncMessageFilter } from '../../store/sync-repo.js';

/** Most messages one read returns (docs/limits.md); a larger page is refused, not cut. */
export const MAX_MESSAGES_LIMIT = 1000;
/** Messages one read returns when no limit is asked. */
const DEFAULT_MESSAGES_LIMIT = 100;

/** What a read of the kept messages asks, as a caller gives it (text from a query or flags, or numbers). */
export interface SyncMessageOptions {
  since?: unknown;
  device?: unknown;
  name?: unknown;
  limit?: unknown;
  offset?: unknown;
  before?: unknown;
}

/** A checked read: the filter of the store and the page. */
export interface SyncMessageQuery {
  filter: SyncMessageFilter;
  limit: number;
  offset: number;
}

const ISO_TIME = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

function refuse(field: string, message: string): never {
  throw new AppError('USAGE', message, { field, settings: [field] });
}

function whole(value: unknown, field: string, min: number, max: number, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    refuse(field, `${what} must be a whole number ${range}; got "${String(value)}"`);
  }
  return n;
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') refuse(field, `${field} must be a non-empty text; got "${String(value)}"`);
  return value;
}

/**
 * Checks what a read of the kept messages asks (docs/sync.md#messages), pure: `since` an ISO 8601
 * time (a date alone is its midnight UTC; a time without a zone is UTC), normalised to the
 * stored form; `device` and `name` exact; `limit` 1 to MAX_MESSAGES_LIMIT (default 100);
 * `offset` 0 or more; `before` a message id (keyset paging). A bad value is USAGE naming it.
 */
export function parseSyncMessageQuery(opts: SyncMessageOptions): SyncMessageQuery {
  const filter: SyncMessageFilter = {};
  if (opts.since !== undefined) {
    const raw = String(opts.since);
    let t = NaN;
    if (ISO_TIME.test(raw)) {
      const iso = raw.replace(' ', 'T');
      // A time without a zone is read as UTC, as every stored time is, not as the machine's zone.
      t = Date.parse(/T/.test(iso) && !/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? `${iso}Z` : iso);
    }
    if (Number.isNaN(t)) refuse('since', `since must be an ISO 8601 time such as 2025-01-31T08:00:00Z; got "${raw}"`);
    filter.since = new Date(t).toISOString();
  }
  const device = text(opts.device, 'device');
  if (device !== undefined) filter.device = device;
  const name = text(opts.name, 'name');
  if (name !== undefined) filter.name = name;
  if (opts.before !== undefined) filter.before = whole(opts.before, 'before', 1, Number.MAX_SAFE_INTEGER, 'before (a message id)');
  const limit = opts.limit === undefined ? DEFAULT_MESSAGES_LIMIT : whole(opts.limit, 'limit', 1, MAX_MESSAGES_LIMIT, 'limit');
  const offset = opts.offset === undefined ? 0 : whole(opts.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 'offset');
  return { filter, limit, offset };
}
