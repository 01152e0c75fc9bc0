import type { Database } from 'better-sqlite3';
import {
  activityCountSql,
  activitySql,
  dayCountSql,
  daySql,
  devicesSeenSql,
  historyCountSql,
  historyPageSql,
  keyCountSql,
  keyGroupCountSql,
  toActivity,
  toDay,
  toHistoryEntry,
  toKeyCount,
  type ActivityRow,
  type AreaNameRow,
  type BoundSql,
  type DayRow,
  type KeyCountRow,
  type KeySlice,
  type RawActivity,
  type RawDay,
  type RawHistoryEntry,
  type ReportPage,
  type SyncActivityFilter,
  type SyncHistoryEntry,
  type SyncHistoryFilter,
} from './sync-report-sql.js';

const ph = () => '?';

/**
 * The supervision reports (docs/supervision.md#sync-history-and-reports): the sync history
 * filtered and paged, grouped per user, device, day or id values, the devices-seen gauge, area
 * names and the CSPro version of each device. Statements are built per shape and prepared on use.
 */
export class SyncReportsRepo {
  constructor(private readonly db: Database) {}

  private all<T>(q: BoundSql): T[] {
    return this.db.prepare(q.sql).all(...q.values) as T[];
  }

  private count(q: BoundSql): number {
    return (this.db.prepare(q.sql).get(...q.values) as { n: number }).n;
  }

  /** History rows the filter selects, newest first, with their dictionary's name. */
  async history(f: SyncHistoryFilter, page: ReportPage): Promise<SyncHistoryEntry[]> {
    return this.all<RawHistoryEntry>(historyPageSql(f, page, ph)).map(toHistoryEntry);
  }

  /** How many history rows the filter selects. */
  async countHistory(f: SyncHistoryFilter): Promise<number> {
    return this.count(historyCountSql(f, ph));
  }

  /** Per user or per device: totals, first and last sync, ordered by user name or device id. */
  async activity(by: 'user' | 'device', f: SyncActivityFilter, page: ReportPage): Promise<ActivityRow[]> {
    return this.all<RawActivity>(activitySql(by, f, page, ph)).map(toActivity);
  }

  /** How many users or devices activity pages over. */
  async countActivity(by: 'user' | 'device', f: SyncActivityFilter): Promise<number> {
    return this.count(activityCountSql(by, f, ph));
  }

  /** Per UTC day, oldest first. */
  async days(f: SyncActivityFilter, page: ReportPage): Promise<DayRow[]> {
    return this.all<RawDay>(daySql(f, page, ph)).map(toDay);
  }

  /** How many days `days` pages over. */
  async countDays(f: SyncActivityFilter): Promise<number> {
    return this.count(dayCountSql(f, ph));
  }

  /** Live cases of a dictionary per combination of id texts (slices of the case key). */
  async keyCounts(dictionaryId: number, slices: readonly KeySlice[], page: ReportPage): Promise<KeyCountRow[]> {
    return this.all<Record<string, unknown>>(keyCountSql(dictionaryId, slices, page, ph)).map((r) => toKeyCount(r, slices.length));
  }

  /** How many combinations keyCounts pages over. */
  async countKeyGroups(dictionaryId: number, slices: readonly KeySlice[]): Promise<number> {
    return this.count(keyGroupCountSql(dictionaryId, slices, ph));
  }

  /** Per dictionary, the distinct devices that synced it at or after `since` (0 when none). */
  async devicesSeenSince(since: string): Promise<{ dictionary: string; devices: number }[]> {
    return this.all(devicesSeenSql(since, ph));
  }

  /** Replaces the area names of a dictionary by `rows` (none: removes them); returns how many it holds. */
  async replaceAreaNames(dictionaryId: number, rows: readonly AreaNameRow[]): Promise<number> {
    const insert = this.db.prepare('INSERT INTO area_names (dictionary_id, codes, label) VALUES (?, ?, ?)');
    this.db.prepare('DELETE FROM area_names WHERE dictionary_id = ?').run(dictionaryId);
    for (const r of rows) insert.run(dictionaryId, r.codes, r.label);
    return rows.length;
  }

  /** The labels of the given normalised code lists (JSON array texts) that have one. */
  async areaNames(dictionaryId: number, codes: readonly string[]): Promise<AreaNameRow[]> {
    if (codes.length === 0) return [];
    return this.db
      .prepare('SELECT codes, label FROM area_names WHERE dictionary_id = ? AND codes IN (SELECT value FROM json_each(?))')
      .all(dictionaryId, JSON.stringify(codes)) as AreaNameRow[];
  }

  /** How many area names a dictionary has. */
  async countAreaNames(dictionaryId: number): Promise<number> {
    return (this.db.prepare('SELECT count(*) AS n FROM area_names WHERE dictionary_id = ?').get(dictionaryId) as { n: number }).n;
  }

  /** The CSPro version a device last synced with (undefined: unknown device; null: never known). */
  async appVersion(device: string): Promise<string | null | undefined> {
    const r = this.db.prepare('SELECT app_version FROM sync_devices WHERE device_id = ?').get(device) as
      { app_version: string | null } | undefined;
    return r?.app_version;
  }

  /** Records the CSPro version a known device synced with. */
  async setAppVersion(device: string, version: string): Promise<void> {
    this.db.prepare('UPDATE sync_devices SET app_version = ? WHERE device_id = ?').run(version, device);
  }
}
