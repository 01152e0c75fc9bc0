import type { Store } from '../../store/open-store.js';
import type { SyncHistoryEntry, SyncHistoryFilter } from '../../store/sync-report-sql.js';
import { requireDictionaryRow } from '../dictionaries/index.js';
import { checkRange, isoTime, oneOf, pageOf, text, whole } from './report-options.js';

/** What a read of the sync history asks, as a caller gives it (text of flags or a query, or numbers). */
export interface SyncHistoryOptions {
  dictionary?: unknown;
  user?: unknown;
  device?: unknown;
  /** `up` (uploads), `down` (completed downloads) or `both` (the default). */
  direction?: unknown;
  since?: unknown;
  until?: unknown;
  limit?: unknown;
  offset?: unknown;
  /** The id of the last row of the previous page (keyset paging). */
  cursor?: unknown;
}

/** A sync as `sds sync history` and `GET /api/dictionaries/{name}/syncs` show it. */
export interface SyncHistoryItem {
  /** Increases with each sync; `cursor` pages on it. */
  id: number;
  dictionary: string;
  device: string;
  username: string;
  /** `up`: an upload (its revision is the one it created); `down`: a completed download. */
  direction: 'up' | 'down';
  revision: number;
  cases: number;
  /** The case-key prefix a download asked for ('' for all). */
  universe: string;
  created_at: string;
}

/** One page of the history, newest first; `total` counts what the filters select. */
export interface SyncHistoryList {
  total: number;
  limit: number;
  offset: number;
  /** The `cursor` of the next page; null on the last one. */
  next_cursor: number | null;
  data: SyncHistoryItem[];
}

const item = (e: SyncHistoryEntry): SyncHistoryItem => ({
  id: e.id,
  dictionary: e.dictionary,
  device: e.device,
  username: e.username,
  direction: e.direction === 'put' ? 'up' : 'down',
  revision: e.revision,
  cases: e.cases,
  universe: e.universe,
  created_at: e.createdAt,
});

/**
 * The sync history, newest first (docs/supervision.md#sync-history-and-reports): filtered by
 * dictionary, user, device, direction (`up`, `down`, `both`) and time (`since` inclusive, `until`
 * exclusive), paged by `limit` (1 to 10000, default 100) and `offset`, or by `cursor` (the last
 * id of the previous page), which stays put while devices sync. Count and page share a snapshot.
 */
export async function listSyncHistory(store: Store, opts: SyncHistoryOptions = {}): Promise<SyncHistoryList> {
  const filter: SyncHistoryFilter = {};
  const dictionary = text(opts.dictionary, 'dictionary');
  if (dictionary !== undefined) filter.dictionaryId = (await requireDictionaryRow(store, dictionary)).id;
  const username = text(opts.user, 'user');
  if (username !== undefined) filter.username = username;
  const device = text(opts.device, 'device');
  if (device !== undefined) filter.device = device;
  const direction = oneOf(opts.direction, 'direction', ['up', 'down', 'both'] as const);
  if (direction === 'up') filter.direction = 'put';
  if (direction === 'down') filter.direction = 'get';
  filter.since = isoTime(opts.since, 'since');
  filter.until = isoTime(opts.until, 'until');
  checkRange(filter.since, filter.until);
  if (opts.cursor !== undefined) filter.before = whole(opts.cursor, 'cursor', 1, Number.MAX_SAFE_INTEGER);
  const page = pageOf(opts);
  return store.readTransaction(async (tx) => {
    const total = await tx.syncReports.countHistory(filter);
    const data = (await tx.syncReports.history(filter, page)).map(item);
    const more = total - page.offset - data.length > 0;
    return { total, ...page, next_cursor: more && data.length > 0 ? data.at(-1)!.id : null, data };
  });
}
