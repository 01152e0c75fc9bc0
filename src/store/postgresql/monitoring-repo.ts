/**
 * The monitoring repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * MonitoringRepo's reads over a PgRunner.
 */
import type { RepoContract } from '../store-contract.js';
import type { CounterRow, MonitoringRepo, QueueDepth, StoreSizes } from '../monitoring-repo.js';
import type { PgRunner } from './pg-runner.js';

/**
 * What monitoring reads from a PostgreSQL store. Where the SQLite repo reads the file itself, this
 * one reads the database: the schema version is the one row of `sds_schema` (SQLite's
 * `user_version`; 0 while the table is absent, docs/decisions.md, "One set of migrations per store
 * database"), and the write probe rewrites that row in a transaction of its own instead of
 * rewriting `user_version` under an IMMEDIATE lock. Nothing here reads page counts or file sizes:
 * a PostgreSQL store's size is its database's (pg_database_size) and its durability the server's
 * (synchronous_commit).
 */
export class PgMonitoringRepo implements RepoContract<MonitoringRepo> {
  constructor(private readonly db: PgRunner) {}

  /** Every durable counter; absent counters have never moved (zero). */
  async counters(): Promise<CounterRow[]> {
    return this.db.rows<CounterRow>('SELECT name, label, value FROM metric_counters ORDER BY name, label');
  }

  /** Webhook deliveries of active webhooks waiting in the queue, by state (docs/metrics.md). */
  async queueDepth(nowMs: number): Promise<QueueDepth> {
    return (await this.db.row<QueueDepth>(
      `SELECT count(*) FILTER (WHERE d.state = 'pending' AND d.next_attempt_ms <= $1) AS due,
              count(*) FILTER (WHERE d.state = 'pending' AND (d.next_attempt_ms IS NULL OR d.next_attempt_ms > $1)) AS waiting,
              count(*) FILTER (WHERE d.state = 'failed') AS failed
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.active = 1 AND d.state IN ('pending', 'failed')`,
      [nowMs],
    ))!;
  }

  /**
   * The size of the store's database (pg_database_size). Its write-ahead log is the server's,
   * shared by every database on it and watched by the server's own monitoring: 0 here.
   */
  async sizes(): Promise<StoreSizes> {
    const r = await this.db.row<{ n: number }>('SELECT pg_database_size(current_database()) AS n');
    return { storeBytes: Number(r!.n), walBytes: 0 };
  }

  /** The schema version recorded in the store (`sds_schema`), read now; 0 while it is absent. */
  async schemaVersion(): Promise<number> {
    const found = await this.db.row<{ present: boolean }>(`SELECT to_regclass('sds_schema') IS NOT NULL AS present`);
    if (!found?.present) return 0;
    return (await this.db.row<{ version: number }>('SELECT coalesce(max(version), 0)::integer AS version FROM sds_schema'))!.version;
  }

  /**
   * Proves the store takes writes and commits them: rewrites the schema version with its own
   * value in a transaction of its own, which the server makes durable before acknowledging it
   * (synchronous_commit) as any write. It changes no data; the old row version is vacuumed away.
   * A read-only server (a standby) or a full disk fails it. Waits for a migration in progress
   * (its row lock).
   */
  async probeWrite(): Promise<void> {
    await this.db.atomic((r) => r.run('UPDATE sds_schema SET version = version'));
  }
}
