/**
 * The webhook outbox, delivery queue and attempt history on PostgreSQL
 * (docs/architecture.md#the-store-contract). The SQLite class is the reference; where it relied
 * on SQLite's one writer at a time, this one takes explicit locks (docs/decisions.md, "Concurrent
 * writers on the PostgreSQL store").
 */
import { PoolRunner, type PgRunner } from './pg-runner.js';
import type { RepoContract } from '../store-contract.js';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_INSERT_COLUMNS,
  attemptValues,
  CLAIMED_COLUMNS,
  DELIVERY_INSERT_COLUMNS,
  DELIVERY_STATE_COLUMNS,
  deliveryValues,
  dueSql,
  inIdOrder,
  requeueSql,
  toOutbox,
  VIEW_SQL,
  type AttemptRecord,
  type AttemptRow,
  type ClaimedDelivery,
  type DeliveryStateRow,
  type DeliveryViewRow,
  type NewDelivery,
  type OutboxRow,
  type RawOutbox,
  type RedeliverOutcome,
  type WebhookQueueRepo,
} from '../webhook-queue-repo.js';

/**
 * The key of the pg_advisory_xact_lock that lets one fan-out at a time read the outbox: the ASCII
 * bytes of "sdsoutbx" as a 64-bit integer (docs/decisions.md, "Concurrent writers on the
 * PostgreSQL store").
 */
const OUTBOX_LOCK_KEY = '8314897734581903992';

/**
 * Whether an outbox row was written by the current transaction (or one of its savepoints): its
 * xmin, widened to a full transaction id around the current one, is still in progress. Under READ
 * COMMITTED a statement sees only committed rows and its own transaction's rows, so a visible row
 * in progress is this transaction's (docs/decisions.md, "Concurrent writers on the PostgreSQL
 * store"). NULL, so false, while the transaction has no id: then it has written nothing.
 */
const CAPTURED_BY_THIS_TRANSACTION = `pg_xact_status((
    me.xid + ((webhook_outbox.xmin::text::bigint - (me.xid & 4294967295) + 2147483648) & 4294967295) - 2147483648
  )::text::xid8) = 'in progress'`;

/** The webhook queue of a PostgreSQL store (see WebhookQueueRepo). */
export class PgWebhookQueueRepo implements RepoContract<WebhookQueueRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * The oldest captured changes, in the order they were made. Inside a transaction it first waits
   * for the advisory lock OUTBOX_LOCK_KEY, held to the commit: a second fan-out reads the outbox
   * only once the first has queued its deliveries and deleted the rows it read, so one change
   * never becomes two deliveries, and webhooks' event times keep growing
   * (docs/decisions.md, "Concurrent writers on the PostgreSQL store"). Outside a transaction
   * there is nothing to hold it for.
   */
  async outbox(limit: number): Promise<OutboxRow[]> {
    if (!(this.db instanceof PoolRunner)) await this.db.run(`SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_KEY})`);
    return (await this.db.rows<RawOutbox>('SELECT * FROM webhook_outbox ORDER BY id LIMIT $1', [limit])).map(toOutbox);
  }

  /** Deletes the outbox rows `ids` (a fan-out's batch, once its deliveries are queued). */
  async deleteOutbox(ids: number[]): Promise<void> {
    if (ids.length > 0) await this.db.run('DELETE FROM webhook_outbox WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** The id of the newest captured change this transaction sees (0 when none). */
  async lastOutboxId(): Promise<number> {
    return (await this.db.row<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM webhook_outbox'))!.id;
  }

  /**
   * Drops the changes captured after `afterId` by this transaction only. Other transactions
   * capture at the same time on PostgreSQL, and their rows may have ids above `afterId` too
   * (committed since, or still in progress): those stay (docs/decisions.md, "Concurrent writers
   * on the PostgreSQL store").
   */
  async discardCapturesAfter(afterId: number): Promise<void> {
    await this.db.run(
      `DELETE FROM webhook_outbox USING (SELECT pg_current_xact_id_if_assigned()::text::bigint AS xid) me
       WHERE webhook_outbox.id > $1 AND ${CAPTURED_BY_THIS_TRANSACTION}`,
      [afterId],
    );
  }

  /** Whether any change waits in the outbox. */
  async hasOutbox(): Promise<boolean> {
    return (await this.db.row('SELECT 1 FROM webhook_outbox LIMIT 1')) !== undefined;
  }

  /** Queues (or records) a delivery; its id. */
  async addDelivery(d: NewDelivery): Promise<number> {
    return (await this.db.row<{ id: number }>(
      `INSERT INTO webhook_deliveries (${DELIVERY_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      deliveryValues(d),
    ))!.id;
  }

  /** True when some delivery of an active webhook is due and not leased. */
  async hasDue(nowMs: number): Promise<boolean> {
    return (
      (await this.db.row(`SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${dueSql('$1')} LIMIT 1`, [
        nowMs,
      ])) !== undefined
    );
  }

  /**
   * Leases the oldest due delivery to `node` until `leaseUntilMs`, or returns undefined when none
   * is due; a lease past its time is free again (its node died). One
   * statement: the pick locks its row `FOR UPDATE SKIP LOCKED`, so two dispatchers at once take
   * two different deliveries, or one takes it and the other none; neither waits
   * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async claim(nowMs: number, leaseUntilMs: number, token: string, node: string): Promise<ClaimedDelivery | undefined> {
    return this.db.row<ClaimedDelivery>(
      `WITH picked AS (
         SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE ${dueSql('$1')} ORDER BY d.next_attempt_ms, d.id LIMIT 1
         FOR UPDATE OF d SKIP LOCKED),
       leased AS (
         UPDATE webhook_deliveries u SET lease_until_ms = $2, lease_token = $3, lease_node = $4 FROM picked WHERE u.id = picked.id RETURNING u.*)
       SELECT ${CLAIMED_COLUMNS} FROM leased d JOIN webhooks w ON w.id = d.webhook_id`,
      [nowMs, leaseUntilMs, token, node],
    );
  }

  /**
   * Records an attempt and moves the delivery on, only while `token` still holds its lease; false
   * when it does not (nothing written). One statement: the UPDATE's row lock orders it with a
   * concurrent claim or redelivery of the same delivery.
   */
  async complete(
    token: string,
    attempt: AttemptRecord,
    next: { state: 'pending' | 'success' | 'failed'; nextAttemptMs: number | null },
  ): Promise<boolean> {
    const values = attemptValues(attempt);
    const changed = await this.db.run(
      `WITH moved AS (
         UPDATE webhook_deliveries SET state = $1, attempts = attempts + 1, next_attempt_ms = $2, lease_until_ms = NULL, lease_token = NULL, lease_node = NULL
         WHERE id = $3 AND lease_token = $4 RETURNING id)
       INSERT INTO webhook_attempts (${ATTEMPT_INSERT_COLUMNS})
       SELECT ${values.map((_, i) => `$${i + 5}`).join(', ')} FROM moved`,
      [next.state, next.nextAttemptMs, attempt.deliveryId, token, ...values],
    );
    return changed === 1;
  }

  /** Records an attempt (a test message's, sent outside the queue). */
  async addAttempt(a: AttemptRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_attempts (${ATTEMPT_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      attemptValues(a),
    );
  }

  /** The newest `limit` attempts of a webhook, newest first. */
  async attempts(webhookId: number, limit: number): Promise<AttemptRow[]> {
    return this.db.rows<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`, [
      webhookId,
      limit,
    ]);
  }

  /** How many attempts a webhook has had, and how they went. */
  async attemptCounts(webhookId: number): Promise<{ total: number; successful: number; failed: number }> {
    return (await this.db.row<{ total: number; successful: number; failed: number }>(
      `SELECT count(*) AS total, count(*) FILTER (WHERE status = 'success') AS successful, count(*) FILTER (WHERE status = 'failed') AS failed
       FROM webhook_attempts WHERE webhook_id = $1`,
      [webhookId],
    ))!;
  }

  /** Queue state of the deliveries of a webhook (all when `webhookId` is undefined), oldest first. */
  async deliveries(webhookId?: number): Promise<DeliveryStateRow[]> {
    return webhookId === undefined
      ? this.db.rows<DeliveryStateRow>(`SELECT ${DELIVERY_STATE_COLUMNS} FROM webhook_deliveries ORDER BY id`)
      : this.db.rows<DeliveryStateRow>(`SELECT ${DELIVERY_STATE_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`, [
          webhookId,
        ]);
  }

  /** The failed deliveries of a webhook, oldest first, at most `limit`, with their last attempt. */
  async failedDeliveries(webhookId: number, limit: number): Promise<DeliveryViewRow[]> {
    return this.db.rows<DeliveryViewRow>(`${VIEW_SQL} WHERE d.webhook_id = $1 AND d.state = 'failed' ORDER BY d.id LIMIT $2`, [
      webhookId,
      limit,
    ]);
  }

  /** How many deliveries of a webhook failed. */
  async countFailed(webhookId: number): Promise<number> {
    return (await this.db.row<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'failed'`, [
      webhookId,
    ]))!.n;
  }

  /** Deliveries of a webhook by id, in id order; ids of other webhooks are left out. */
  async deliveryViews(webhookId: number, ids: number[]): Promise<DeliveryViewRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.rows<DeliveryViewRow>(`${VIEW_SQL} WHERE d.webhook_id = $1 AND d.id = ANY($2::bigint[])`, [webhookId, ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return inIdOrder(ids, (id) => byId.get(id));
  }

  /**
   * Puts a failed delivery of `webhookId` back in the queue, due at `nowMs`. The state is read
   * `FOR UPDATE`, so of two operators redelivering it at once the second waits and finds it
   * pending (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async redeliver(webhookId: number, deliveryId: number, nowMs: number): Promise<RedeliverOutcome> {
    return this.db.atomic(async (r): Promise<RedeliverOutcome> => {
      const row = await r.row<{ state: 'pending' | 'success' | 'failed' }>(
        'SELECT state FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 FOR UPDATE',
        [deliveryId, webhookId],
      );
      if (!row) return { kind: 'missing' };
      if (row.state !== 'failed') return { kind: 'not-failed', state: row.state };
      await r.run(`${requeueSql('$1')} WHERE id = $2`, [nowMs, deliveryId]);
      return { kind: 'queued', id: deliveryId };
    });
  }

  /** Puts every failed delivery of a webhook back in the queue (one statement); their ids, in order. */
  async redeliverAllFailed(webhookId: number, nowMs: number): Promise<number[]> {
    return (
      await this.db.rows<{ id: number }>(`${requeueSql('$1')} WHERE webhook_id = $2 AND state = 'failed' RETURNING id`, [nowMs, webhookId])
    )
      .map((r) => r.id)
      .sort((a, b) => a - b);
  }

  /** Deliveries waiting to be sent, and when the next one is due (null when none waits). */
  async pending(): Promise<{ count: number; nextDueMs: number | null }> {
    return (await this.db.row<{ count: number; nextDueMs: number | null }>(
      `SELECT count(*) AS count, min(d.next_attempt_ms) AS "nextDueMs" FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.state = 'pending' AND w.active = 1`,
    ))!;
  }
}
