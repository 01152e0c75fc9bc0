import type { Store } from '../../store/open-store.js';
import type { ActivityRow, SyncActivityFilter } from '../../store/sync-report-sql.js';
import { requireDictionary, requireDictionaryRow } from '../dictionaries/index.js';
import { areaKey } from './area-names-csv.js';
import { idSlices } from './id-slices.js';
import { checkRange, isoTime, oneOf, pageOf, refuse, text, whole } from './report-options.js';

/** The groupings of a report. */
const REPORT_GROUPINGS = ['user', 'device', 'day', 'ids'] as const;

/** Longest `not_seen` (days) a report takes. */
const MAX_NOT_SEEN_DAYS = 3650;
const DAY_MS = 24 * 3600 * 1000;

/** What a report asks, as a caller gives it (text of flags or a query, or numbers). */
export interface SyncReportOptions {
  dictionary?: unknown;
  by?: unknown;
  /** The id items of `by: ids`: a comma-separated text or a list. */
  ids?: unknown;
  /** Only the users or devices whose last sync is more than this many days old. */
  notSeen?: unknown;
  since?: unknown;
  until?: unknown;
  limit?: unknown;
  offset?: unknown;
}

/** What one interviewer (user name) synced. */
export interface UserReportRow {
  user: string;
  uploads: number;
  cases_uploaded: number;
  downloads: number;
  cases_downloaded: number;
  first_sync: string;
  last_sync: string;
  devices: number;
  last_device: string;
  app_version: string | null;
}

/** What one device synced. */
export interface DeviceReportRow {
  device: string;
  uploads: number;
  cases_uploaded: number;
  downloads: number;
  cases_downloaded: number;
  first_sync: string;
  last_sync: string;
  users: number;
  last_user: string;
  app_version: string | null;
}

/** The syncs of one UTC day. */
export interface DayReportRow {
  day: string;
  uploads: number;
  cases_uploaded: number;
  downloads: number;
  cases_downloaded: number;
  devices: number;
  users: number;
}

/** Live cases of one combination of id values, with the areas' names when stored. */
export interface IdsReportRow {
  /** Id item name to its value (the key's text, trimmed). */
  ids: Record<string, string>;
  /** Id item name to the name of the area its codes (and those of the items before it) make; null when none is stored. */
  names: Record<string, string | null>;
  cases: number;
}

interface ReportHead {
  dictionary: string | null;
  since: string | null;
  until: string | null;
  not_seen_days: number | null;
  /** Rows the report holds in all (this page and the others). */
  total: number;
  limit: number;
  offset: number;
}

/** A report (docs/supervision.md#sync-history-and-reports): one page of rows of its grouping. */
export type SyncReport =
  | (ReportHead & { by: 'user'; rows: UserReportRow[] })
  | (ReportHead & { by: 'device'; rows: DeviceReportRow[] })
  | (ReportHead & { by: 'day'; rows: DayReportRow[] })
  | (ReportHead & { by: 'ids'; id_items: string[]; rows: IdsReportRow[] });

const totals = (r: { uploads: number; casesUploaded: number; downloads: number; casesDownloaded: number }) => ({
  uploads: r.uploads,
  cases_uploaded: r.casesUploaded,
  downloads: r.downloads,
  cases_downloaded: r.casesDownloaded,
});

const userRow = (r: ActivityRow): UserReportRow => ({
  user: r.key,
  ...totals(r),
  first_sync: r.firstSync,
  last_sync: r.lastSync,
  devices: r.others,
  last_device: r.lastOther,
  app_version: r.appVersion,
});

const deviceRow = (r: ActivityRow): DeviceReportRow => ({
  device: r.key,
  ...totals(r),
  first_sync: r.firstSync,
  last_sync: r.lastSync,
  users: r.others,
  last_user: r.lastOther,
  app_version: r.appVersion,
});

function idNames(value: unknown): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  return list.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * A supervision report (docs/supervision.md#sync-history-and-reports), read from the store by
 * grouped statements, never from a breakout target: `by` `user` (the default) or `device`, what
 * each synced (uploads and downloads, their cases, first and last sync, the other side of its
 * last sync, its device's CSPro version), with `notSeen` only those whose last sync is more than
 * that many days before `nowMs`; `day`, the syncs of each UTC day; `ids`, the live cases of
 * `dictionary` per combination of the values of the id items `ids`, with the area names stored
 * for them. `since` and `until` bound the history the first three read. Bad options are USAGE,
 * unknown id items REPORT_IDS_INVALID.
 */
export async function syncReport(store: Store, opts: SyncReportOptions, nowMs: number): Promise<SyncReport> {
  const by = oneOf(opts.by, 'by', REPORT_GROUPINGS) ?? 'user';
  const dictionaryName = text(opts.dictionary, 'dictionary');
  const since = isoTime(opts.since, 'since');
  const until = isoTime(opts.until, 'until');
  checkRange(since, until);
  const notSeen = opts.notSeen === undefined ? undefined : whole(opts.notSeen, 'not_seen', 1, MAX_NOT_SEEN_DAYS);
  const page = pageOf(opts);
  const ids = idNames(opts.ids);
  if (notSeen !== undefined && by !== 'user' && by !== 'device') refuse('not_seen', 'not_seen applies to a report by user or by device');
  if (ids.length > 0 && by !== 'ids') refuse('ids', 'ids applies to a report by ids');
  const head = { since: since ?? null, until: until ?? null, not_seen_days: notSeen ?? null, ...page };
  if (by === 'ids') {
    if (dictionaryName === undefined) refuse('dictionary', 'a report by ids needs the dictionary whose cases it counts');
    if (since !== undefined || until !== undefined)
      refuse('since', 'since and until bound the sync history; a report by ids counts the cases');
    return idsReport(store, dictionaryName, ids, head);
  }
  const dictionary = dictionaryName === undefined ? undefined : await requireDictionaryRow(store, dictionaryName);
  const filter: SyncActivityFilter = { dictionaryId: dictionary?.id, since, until };
  if (notSeen !== undefined) filter.lastBefore = new Date(nowMs - notSeen * DAY_MS).toISOString();
  const base = { ...head, dictionary: dictionary?.name ?? null };
  return store.readTransaction(async (tx) => {
    if (by === 'day') {
      const rows = (await tx.syncReports.days(filter, page)).map((r) => ({
        day: r.day,
        ...totals(r),
        devices: r.devices,
        users: r.users,
      }));
      return { by, ...base, total: await tx.syncReports.countDays(filter), rows };
    }
    const rows = await tx.syncReports.activity(by, filter, page);
    const total = await tx.syncReports.countActivity(by, filter);
    return by === 'user' ? { by, ...base, total, rows: rows.map(userRow) } : { by, ...base, total, rows: rows.map(deviceRow) };
  });
}

async function idsReport(
  store: Store,
  dictionaryName: string,
  names: string[],
  head: Omit<ReportHead, 'dictionary' | 'total'>,
): Promise<SyncReport> {
  const dict = await requireDictionary(store, dictionaryName);
  const slices = idSlices(dict.model, names);
  return store.readTransaction(async (tx) => {
    const groups = await tx.syncReports.keyCounts(dict.id, slices, { limit: head.limit, offset: head.offset });
    const total = await tx.syncReports.countKeyGroups(dict.id, slices);
    // The names of this page's areas only: every prefix of each row's codes, one read.
    const keys = new Set<string>();
    for (const g of groups) for (let i = 1; i <= g.codes.length; i++) keys.add(areaKey(g.codes.slice(0, i)));
    const labels = new Map((await tx.syncReports.areaNames(dict.id, [...keys])).map((a) => [a.codes, a.label]));
    const rows = groups.map((g) => {
      const ids: Record<string, string> = {};
      const areaNames: Record<string, string | null> = {};
      slices.forEach((s, i) => {
        ids[s.name] = g.codes[i]!.trim();
        areaNames[s.name] = labels.get(areaKey(g.codes.slice(0, i + 1))) ?? null;
      });
      return { ids, names: areaNames, cases: g.cases };
    });
    return { by: 'ids' as const, ...head, dictionary: dict.name, total, id_items: slices.map((s) => s.name), rows };
  });
}
