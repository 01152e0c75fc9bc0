/**
 * The SQL of the supervision reports (docs/supervision.md#sync-history-and-reports), pure and
 * shared by both stores: every read is one set-based statement that groups in the database, so a
 * report never loads the history or the cases into memory. `ph` writes the place of the next
 * value (SQLite `?`, PostgreSQL `$n`); each value is pushed once, in the order of its place.
 */
import type { SyncDirection } from './sync-repo.js';

/** Which history rows a read selects (every field optional). */
export interface SyncHistoryFilter {
  dictionaryId?: number;
  device?: string;
  username?: string;
  direction?: SyncDirection;
  /** At or after this ISO 8601 UTC time. */
  since?: string;
  /** Before this ISO 8601 UTC time. */
  until?: string;
  /** Only ids below this one (keyset paging). */
  before?: number;
}

/** A history row with the name of its dictionary. */
export interface SyncHistoryEntry {
  id: number;
  dictionary: string;
  device: string;
  username: string;
  direction: SyncDirection;
  revision: number;
  universe: string;
  cases: number;
  createdAt: string;
}

/** Which history rows a grouped report counts, and which groups it keeps. */
export interface SyncActivityFilter {
  dictionaryId?: number;
  since?: string;
  until?: string;
  /** Keep only the groups whose last sync is before this time (devices not seen since). */
  lastBefore?: string;
}

/** A page of a grouped report. */
export interface ReportPage {
  limit: number;
  offset: number;
}

/** Per interviewer (`user`) or per device: what one of them synced. */
export interface ActivityRow {
  /** The user name or the device id. */
  key: string;
  uploads: number;
  casesUploaded: number;
  downloads: number;
  casesDownloaded: number;
  firstSync: string;
  lastSync: string;
  /** Distinct devices of a user, or distinct users of a device. */
  others: number;
  /** The device of a user's last sync, or the user of a device's last sync. */
  lastOther: string;
  /** The CSPro version the device of the last sync last synced with; null when unknown. */
  appVersion: string | null;
}

/** One UTC day of the history. */
export interface DayRow {
  day: string;
  uploads: number;
  casesUploaded: number;
  downloads: number;
  casesDownloaded: number;
  devices: number;
  users: number;
}

/** Where one id item's text is in a case key: 1-based start and length. */
export interface KeySlice {
  start: number;
  length: number;
}

/** Live cases of one combination of id values. */
export interface KeyCountRow {
  codes: string[];
  cases: number;
}

/** Writes the place of the next value: SQLite `?`, PostgreSQL `$n`. */
export type Placeholder = (position: number) => string;

/** A statement and its values, in order. */
export interface BoundSql {
  sql: string;
  values: unknown[];
}

class Binder {
  readonly values: unknown[] = [];
  constructor(private readonly ph: Placeholder) {}
  bind(value: unknown): string {
    this.values.push(value);
    return this.ph(this.values.length);
  }
}

function historyWhere(f: SyncHistoryFilter, b: Binder): string {
  const conds: string[] = [];
  if (f.dictionaryId !== undefined) conds.push(`h.dictionary_id = ${b.bind(f.dictionaryId)}`);
  if (f.device !== undefined) conds.push(`h.device_id = ${b.bind(f.device)}`);
  if (f.username !== undefined) conds.push(`h.username = ${b.bind(f.username)}`);
  if (f.direction !== undefined) conds.push(`h.direction = ${b.bind(f.direction)}`);
  if (f.since !== undefined) conds.push(`h.created_at >= ${b.bind(f.since)}`);
  if (f.until !== undefined) conds.push(`h.created_at < ${b.bind(f.until)}`);
  if (f.before !== undefined) conds.push(`h.id < ${b.bind(f.before)}`);
  return conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : '';
}

/** A page of history rows, newest (highest id) first, with the dictionary's name. */
export function historyPageSql(f: SyncHistoryFilter, page: ReportPage, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  const where = historyWhere(f, b);
  const sql = `SELECT h.id, d.name AS dictionary, h.device_id, h.username, h.direction, h.revision, h.universe, h.cases, h.created_at
    FROM sync_history h JOIN dictionaries d ON d.id = h.dictionary_id ${where}
    ORDER BY h.id DESC LIMIT ${b.bind(page.limit)} OFFSET ${b.bind(page.offset)}`;
  return { sql, values: b.values };
}

/** How many history rows the filter selects. */
export function historyCountSql(f: SyncHistoryFilter, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  return { sql: `SELECT count(*) AS n FROM sync_history h ${historyWhere(f, b)}`, values: b.values };
}

/** A history row as the page statement returns it. */
export interface RawHistoryEntry {
  id: number;
  dictionary: string;
  device_id: string;
  username: string;
  direction: SyncDirection;
  revision: number;
  universe: string;
  cases: number;
  created_at: string;
}

/** A history entry from its database row. */
export const toHistoryEntry = (r: RawHistoryEntry): SyncHistoryEntry => ({
  id: r.id,
  dictionary: r.dictionary,
  device: r.device_id,
  username: r.username,
  direction: r.direction,
  revision: r.revision,
  universe: r.universe,
  cases: r.cases,
  createdAt: r.created_at,
});

// CAST keeps sums whole on PostgreSQL, where sum(bigint) is numeric (read back as text).
const TOTALS = `count(*) FILTER (WHERE h.direction = 'put') AS uploads,
  CAST(coalesce(sum(h.cases) FILTER (WHERE h.direction = 'put'), 0) AS BIGINT) AS cases_uploaded,
  count(*) FILTER (WHERE h.direction = 'get') AS downloads,
  CAST(coalesce(sum(h.cases) FILTER (WHERE h.direction = 'get'), 0) AS BIGINT) AS cases_downloaded`;

function activityWhere(f: SyncActivityFilter, b: Binder): string {
  return historyWhere({ dictionaryId: f.dictionaryId, since: f.since, until: f.until }, b);
}

function activityGroups(by: 'user' | 'device', f: SyncActivityFilter, b: Binder): string {
  const key = by === 'user' ? 'h.username' : 'h.device_id';
  const other = by === 'user' ? 'h.device_id' : 'h.username';
  const having = f.lastBefore !== undefined ? `HAVING max(h.created_at) < ${b.bind(f.lastBefore)}` : '';
  return `SELECT ${key} AS group_key, ${TOTALS}, min(h.created_at) AS first_sync, max(h.created_at) AS last_sync,
      count(DISTINCT ${other}) AS others, max(h.id) AS last_id
    FROM sync_history h ${activityWhere(f, b)} GROUP BY ${key} ${having}`;
}

/**
 * Per user or per device, ordered by it: the totals of the selected rows and, through the row of
 * its last sync (a primary-key read per group), the other side of that sync and its device's
 * CSPro version.
 */
export function activitySql(by: 'user' | 'device', f: SyncActivityFilter, page: ReportPage, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  const groups = activityGroups(by, f, b);
  const lastOther = by === 'user' ? 'l.device_id' : 'l.username';
  const sql = `SELECT g.group_key, g.uploads, g.cases_uploaded, g.downloads, g.cases_downloaded, g.first_sync, g.last_sync, g.others,
      ${lastOther} AS last_other, v.app_version
    FROM (${groups}) g JOIN sync_history l ON l.id = g.last_id LEFT JOIN sync_devices v ON v.device_id = l.device_id
    ORDER BY g.group_key LIMIT ${b.bind(page.limit)} OFFSET ${b.bind(page.offset)}`;
  return { sql, values: b.values };
}

/** How many groups activitySql pages over. */
export function activityCountSql(by: 'user' | 'device', f: SyncActivityFilter, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  return { sql: `SELECT count(*) AS n FROM (${activityGroups(by, f, b)}) g`, values: b.values };
}

/** An activity row as the database returns it. */
export interface RawActivity {
  group_key: string;
  uploads: number;
  cases_uploaded: number;
  downloads: number;
  cases_downloaded: number;
  first_sync: string;
  last_sync: string;
  others: number;
  last_other: string;
  app_version: string | null;
}

/** An activity row from its database row. */
export const toActivity = (r: RawActivity): ActivityRow => ({
  key: r.group_key,
  uploads: r.uploads,
  casesUploaded: r.cases_uploaded,
  downloads: r.downloads,
  casesDownloaded: r.cases_downloaded,
  firstSync: r.first_sync,
  lastSync: r.last_sync,
  others: r.others,
  lastOther: r.last_other,
  appVersion: r.app_version,
});

function dayGroups(f: SyncActivityFilter, b: Binder): string {
  // Stored times are ISO 8601 UTC text: the first ten characters are the UTC day.
  return `SELECT substr(h.created_at, 1, 10) AS day, ${TOTALS}, count(DISTINCT h.device_id) AS devices, count(DISTINCT h.username) AS users
    FROM sync_history h ${activityWhere(f, b)} GROUP BY substr(h.created_at, 1, 10)`;
}

/** Per UTC day, oldest first: uploads, downloads, their cases, distinct devices and users. */
export function daySql(f: SyncActivityFilter, page: ReportPage, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  const groups = dayGroups(f, b);
  return { sql: `${groups} ORDER BY day LIMIT ${b.bind(page.limit)} OFFSET ${b.bind(page.offset)}`, values: b.values };
}

/** How many days daySql pages over. */
export function dayCountSql(f: SyncActivityFilter, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  return { sql: `SELECT count(*) AS n FROM (${dayGroups(f, b)}) g`, values: b.values };
}

/** A day row as the database returns it. */
export interface RawDay {
  day: string;
  uploads: number;
  cases_uploaded: number;
  downloads: number;
  cases_downloaded: number;
  devices: number;
  users: number;
}

/** A day row from its database row. */
export const toDay = (r: RawDay): DayRow => ({
  day: r.day,
  uploads: r.uploads,
  casesUploaded: r.cases_uploaded,
  downloads: r.downloads,
  casesDownloaded: r.cases_downloaded,
  devices: r.devices,
  users: r.users,
});

function keyGroups(dictionaryId: number, slices: readonly KeySlice[], b: Binder): string {
  const cols = slices.map((s, i) => `substr(case_key, ${b.bind(s.start)}, ${b.bind(s.length)}) AS k${i}`);
  const names = slices.map((_, i) => `k${i}`).join(', ');
  return `SELECT ${cols.join(', ')}, count(*) AS cases FROM cases WHERE dictionary_id = ${b.bind(dictionaryId)} AND deleted = 0
    GROUP BY ${names}`;
}

/** Live cases per combination of id texts (slices of the case key), ordered by them. */
export function keyCountSql(dictionaryId: number, slices: readonly KeySlice[], page: ReportPage, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  const groups = keyGroups(dictionaryId, slices, b);
  const order = slices.map((_, i) => `k${i}`).join(', ');
  return { sql: `${groups} ORDER BY ${order} LIMIT ${b.bind(page.limit)} OFFSET ${b.bind(page.offset)}`, values: b.values };
}

/** How many combinations keyCountSql pages over. */
export function keyGroupCountSql(dictionaryId: number, slices: readonly KeySlice[], ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  return { sql: `SELECT count(*) AS n FROM (${keyGroups(dictionaryId, slices, b)}) g`, values: b.values };
}

/** A key-count row from its database row (`k0`, `k1`, … and `cases`). */
export function toKeyCount(r: Record<string, unknown>, slices: number): KeyCountRow {
  const codes: string[] = [];
  for (let i = 0; i < slices; i++) codes.push(String(r[`k${i}`] ?? ''));
  return { codes, cases: Number(r.cases) };
}

/**
 * Per dictionary, the distinct devices whose sync of it is at or after `since` (0 for a dictionary
 * none synced): the devices-seen gauge, read from sync_history_by_dictionary_time.
 */
export function devicesSeenSql(since: string, ph: Placeholder): BoundSql {
  const b = new Binder(ph);
  return {
    sql: `SELECT d.name AS dictionary, count(DISTINCT h.device_id) AS devices
      FROM dictionaries d LEFT JOIN sync_history h ON h.dictionary_id = d.id AND h.created_at >= ${b.bind(since)}
      GROUP BY d.name ORDER BY d.name`,
    values: b.values,
  };
}

/** An area name: its normalised codes (JSON array text) and its label. */
export interface AreaNameRow {
  codes: string;
  label: string;
}
