import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';

/** One durable counter of the metric_counters table (migration 0016). */
export interface CounterRow {
  name: string;
  label: string;
  value: number;
}

/** Webhook deliveries waiting in the queue, by state (docs/metrics.md). */
export interface QueueDepth {
  /** Pending and due now (next attempt at or before `nowMs`). */
  due: number;
  /** Pending, waiting for a later retry. */
  waiting: number;
  /** Retries used up; waiting for an operator's redelivery. */
  failed: number;
}

/** How big the store is (docs/metrics.md): `sds_store_size_bytes` and `sds_store_wal_size_bytes`. */
export interface StoreSizes {
  storeBytes: number;
  walBytes: number;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

/**
 * What monitoring reads from the store: the durable counters kept by triggers, the webhook queue
 * depth, and a write probe for readiness. Statements are prepared on use, so a store whose
 * schema is behind (readiness reports it) can still be asked its version.
 */
export class MonitoringRepo {
  constructor(private readonly db: Database) {}

  /** Every durable counter; absent counters have never moved (zero). */
  async counters(): Promise<CounterRow[]> {
    return this.db.prepare('SELECT name, label, value FROM metric_counters ORDER BY name, label').all() as CounterRow[];
  }

  async queueDepth(nowMs: number): Promise<QueueDepth> {
    return this.db
      .prepare(
        `SELECT coalesce(sum(d.state = 'pending' AND d.next_attempt_ms <= ?), 0) AS due,
                coalesce(sum(d.state = 'pending' AND (d.next_attempt_ms IS NULL OR d.next_attempt_ms > ?)), 0) AS waiting,
                coalesce(sum(d.state = 'failed'), 0) AS failed
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.active = 1 AND d.state IN ('pending', 'failed')`,
      )
      .get(nowMs, nowMs) as QueueDepth;
  }

  /** The size of the store file sds.db and of its WAL (0 when there is none: after a truncating checkpoint). */
  async sizes(): Promise<StoreSizes> {
    const file = this.db.name;
    return { storeBytes: sizeOf(file), walBytes: sizeOf(`${file}-wal`) };
  }

  /** The schema version recorded in the store file (SQLite's user_version), read now. */
  async schemaVersion(): Promise<number> {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /**
   * Proves the store takes the write lock and commits: rewrites the schema version with its own
   * value in an IMMEDIATE transaction. That commits one page to the WAL and fsyncs it, as any
   * write would, yet changes no data and never grows the store (the WAL is reused after each
   * checkpoint). Waits for the lock like any write (the store's busy timeout).
   */
  async probeWrite(): Promise<void> {
    this.db
      .transaction(() => {
        const v = this.db.pragma('user_version', { simple: true }) as number;
        this.db.pragma(`user_version = ${Number(v)}`);
      })
      .immediate();
  }
}
