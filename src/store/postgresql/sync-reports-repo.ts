/**
 * The supervision reports on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * SyncReportsRepo's statements (sync-report-sql.ts) over a PgRunner.
 */
import type { RepoContract } from '../store-contract.js';
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
} from '../sync-report-sql.js';
import type { SyncReportsRepo } from '../sync-reports-repo.js';
import type { PgRunner } from './pg-runner.js';

const ph = (n: number) => `$${n}`;

export class PgSyncReportsRepo implements RepoContract<SyncReportsRepo> {
  constructor(private readonly db: PgRunner) {}

  private async count(q: BoundSql): Promise<number> {
    return (await this.db.row<{ n: number }>(q.sql, q.values))!.n;
  }

  async history(f: SyncHistoryFilter, page: ReportPage): Promise<SyncHistoryEntry[]> {
    const q = historyPageSql(f, page, ph);
    return (await this.db.rows<RawHistoryEntry>(q.sql, q.values)).map(toHistoryEntry);
  }

  async countHistory(f: SyncHistoryFilter): Promise<number> {
    return this.count(historyCountSql(f, ph));
  }

  async activity(by: 'user' | 'device', f: SyncActivityFilter, page: ReportPage): Promise<ActivityRow[]> {
    const q = activitySql(by, f, page, ph);
    return (await this.db.rows<RawActivity>(q.sql, q.values)).map(toActivity);
  }

  async countActivity(by: 'user' | 'device', f: SyncActivityFilter): Promise<number> {
    return this.count(activityCountSql(by, f, ph));
  }

  async days(f: SyncActivityFilter, page: ReportPage): Promise<DayRow[]> {
    const q = daySql(f, page, ph);
    return (await this.db.rows<RawDay>(q.sql, q.values)).map(toDay);
  }

  async countDays(f: SyncActivityFilter): Promise<number> {
    return this.count(dayCountSql(f, ph));
  }

  async keyCounts(dictionaryId: number, slices: readonly KeySlice[], page: ReportPage): Promise<KeyCountRow[]> {
    const q = keyCountSql(dictionaryId, slices, page, ph);
    return (await this.db.rows<Record<string, unknown>>(q.sql, q.values)).map((r) => toKeyCount(r, slices.length));
  }

  async countKeyGroups(dictionaryId: number, slices: readonly KeySlice[]): Promise<number> {
    return this.count(keyGroupCountSql(dictionaryId, slices, ph));
  }

  async devicesSeenSince(since: string): Promise<{ dictionary: string; devices: number }[]> {
    const q = devicesSeenSql(since, ph);
    return this.db.rows<{ dictionary: string; devices: number }>(q.sql, q.values);
  }

  /** Replaces a dictionary's area names in one statement pair, the rows sent as arrays. */
  async replaceAreaNames(dictionaryId: number, rows: readonly AreaNameRow[]): Promise<number> {
    await this.db.run('DELETE FROM area_names WHERE dictionary_id = $1', [dictionaryId]);
    if (rows.length > 0) {
      await this.db.run(
        'INSERT INTO area_names (dictionary_id, codes, label) SELECT $1, c, l FROM unnest($2::text[], $3::text[]) AS t(c, l)',
        [dictionaryId, rows.map((r) => r.codes), rows.map((r) => r.label)],
      );
    }
    return rows.length;
  }

  async areaNames(dictionaryId: number, codes: readonly string[]): Promise<AreaNameRow[]> {
    if (codes.length === 0) return [];
    return this.db.rows<AreaNameRow>('SELECT codes, label FROM area_names WHERE dictionary_id = $1 AND codes = ANY($2::text[])', [
      dictionaryId,
      codes,
    ]);
  }

  async countAreaNames(dictionaryId: number): Promise<number> {
    return this.count({ sql: 'SELECT count(*) AS n FROM area_names WHERE dictionary_id = $1', values: [dictionaryId] });
  }

  async appVersion(device: string): Promise<string | null | undefined> {
    const r = await this.db.row<{ app_version: string | null }>('SELECT app_version FROM sync_devices WHERE device_id = $1', [device]);
    return r?.app_version;
  }

  async setAppVersion(device: string, version: string): Promise<void> {
    await this.db.run('UPDATE sync_devices SET app_version = $1 WHERE device_id = $2', [version, device]);
  }
}
