/**
 * The options of `sds sync history`, `sds sync report` and their routes, checked (pure): times,
 * pages, directions and groupings as a caller gives them (text of flags or a query, or numbers).
 * A bad value is USAGE naming its field (docs/supervision.md#sync-history-and-reports).
 */
import { AppError } from '../../shared/errors.js';

/** Most rows one page of the history or of a report holds (docs/limits.md); more is refused, not cut. */
export const MAX_REPORT_LIMIT = 10000;
/** Rows of a page when no limit is asked. */
const DEFAULT_REPORT_LIMIT = 100;
/** Most id items a geographic report groups by. */
export const MAX_REPORT_IDS = 8;

const ISO_TIME = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/** USAGE naming the field. */
export function refuse(field: string, message: string): never {
  throw new AppError('USAGE', message, { field, settings: [field] });
}

/** A whole number from min to max, or USAGE. */
export function whole(value: unknown, field: string, min: number, max: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    refuse(field, `${field} must be a whole number ${range}; got "${String(value)}"`);
  }
  return n;
}

/**
 * An ISO 8601 time in the stored form (UTC, milliseconds): a date alone is its midnight UTC, a
 * time without a zone is UTC, as every stored time is.
 */
export function isoTime(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  const raw = String(value);
  let t = NaN;
  if (ISO_TIME.test(raw)) {
    const iso = raw.replace(' ', 'T');
    t = Date.parse(/T/.test(iso) && !/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? `${iso}Z` : iso);
  }
  if (Number.isNaN(t)) refuse(field, `${field} must be an ISO 8601 time such as 2025-01-31T08:00:00Z or a date; got "${raw}"`);
  return new Date(t).toISOString();
}

/** A non-empty text, or undefined when absent. */
export function text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') refuse(field, `${field} must be a non-empty text; got "${String(value)}"`);
  return value;
}

/** One of `allowed`, or undefined when absent. */
export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    refuse(field, `${field} must be one of ${allowed.join(', ')}; got "${String(value)}"`);
  }
  return value as T;
}

/** `limit` (1 to MAX_REPORT_LIMIT, default DEFAULT_REPORT_LIMIT) and `offset` (0 or more). */
export function pageOf(opts: { limit?: unknown; offset?: unknown }): { limit: number; offset: number } {
  return {
    limit: opts.limit === undefined ? DEFAULT_REPORT_LIMIT : whole(opts.limit, 'limit', 1, MAX_REPORT_LIMIT),
    offset: opts.offset === undefined ? 0 : whole(opts.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
  };
}

/** `since` before `until`, when both are given. */
export function checkRange(since: string | undefined, until: string | undefined): void {
  if (since !== undefined && until !== undefined && since >= until) refuse('until', `until (${until}) must be after since (${since})`);
}
