import type { Database, Statement } from 'better-sqlite3';

/** A change captured by the triggers of migration 0009, waiting to become events. */
export interface OutboxRow {
  id: number;
  topic: 'case' | 'dictionary';
  createdMs: number;
  dictionaryId: number;
  dictionaryName: string;
  guid: string | null;
  old: CaseImage | null;
  new: CaseImage | null;
  modifiedAt: string | null;
  dictLabel: string | null;
  dictVersion: string | null;
  dictCreated: boolean | null;
}

/** The columns of a case an event can talk about, before or after the change. */
export interface CaseImage {
  caseKey: string;
  label: string;
  data: string;
  notes: string;
  verified: boolean;
  deleted: boolean;
}

/** An outbox row as the database returns it (read by both stores). */
export interface RawOutbox {
  id: number;
  topic: 'case' | 'dictionary';
  created_ms: number;
  dictionary_id: number;
  dictionary_name: string;
  guid: string | null;
  old_key: string | null;
  old_label: string | null;
  old_data: string | null;
  old_notes: string | null;
  old_verified: number | null;
  old_deleted: number | null;
  new_key: string | null;
  new_label: string | null;
  new_data: string | null;
  new_notes: string | null;
  new_verified: number | null;
  new_deleted: number | null;
  modified_at: string | null;
  dict_label: string | null;
  dict_version: string | null;
  dict_created: number | null;
}

/** A case as captured; null for the missing side. A new case is captured without data and notes ('' and '[]'): its event carries no diff. */
function image(
  key: string | null,
  label: string | null,
  data: string | null,
  notes: string | null,
  verified: number | null,
  deleted: number | null,
): CaseImage | null {
  if (key === null) return null;
  return { caseKey: key, label: label ?? '', data: data ?? '', notes: notes ?? '[]', verified: verified === 1, deleted: deleted === 1 };
}

/** An outbox row as the fan-out reads it. */
export function toOutbox(r: RawOutbox): OutboxRow {
  return {
    id: r.id,
    topic: r.topic,
    createdMs: r.created_ms,
    dictionaryId: r.dictionary_id,
    dictionaryName: r.dictionary_name,
    guid: r.guid,
    old: image(r.old_key, r.old_label, r.old_data, r.old_notes, r.old_verified, r.old_deleted),
    new: image(r.new_key, r.new_label, r.new_data, r.new_notes, r.new_verified, r.new_deleted),
    modifiedAt: r.modified_at,
    dictLabel: r.dict_label,
    dictVersion: r.dict_version,
    dictCreated: r.dict_created === null ? null : r.dict_created === 1,
  };
}

export interface NewDelivery {
  webhookId: number;
  event: string;
  messageId: string;
  body: string;
  /** `pending` for the queue; `success`/`failed` for a test message recorded after it was sent. */
  state: 'pending' | 'success' | 'failed';
  nextAttemptMs: number | null;
  createdAt: string;
}

/** A delivery held by one dispatcher under a lease, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  event: string;
  messageId: string;
  body: string;
  /** Attempts made since the delivery was queued or last redelivered. */
  attempts: number;
  /** Times an operator re-queued it after it failed (0 for the original round). */
  redeliveries: number;
  leaseToken: string;
  url: string;
  secret: string;
}

export interface AttemptRecord {
  deliveryId: number;
  webhookId: number;
  event: string;
  status: 'success' | 'failed';
  responseStatus: number | null;
  responseMs: number;
  error: string | null;
  retryCount: number;
  /** The round of the attempt: 0 for the original one, n after the n-th redelivery. */
  redelivery: number;
  attemptedAt: string;
}

export interface AttemptRow extends Omit<AttemptRecord, 'webhookId'> {
  id: number;
}

/** A delivery as an operator sees it: its queue state, body and last attempt. */
export interface DeliveryViewRow {
  id: number;
  event: string;
  messageId: string;
  body: string;
  state: 'pending' | 'success' | 'failed';
  nextAttemptMs: number | null;
  redeliveries: number;
  createdAt: string;
  /** Attempts recorded for it, over every round. */
  totalAttempts: number;
  lastAttemptedAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
}

/** What `redeliver` found: the delivery re-queued, or why not. */
export type RedeliverOutcome = { kind: 'queued'; id: number } | { kind: 'missing' } | { kind: 'not-failed'; state: 'pending' | 'success' };

export interface DeliveryStateRow {
  id: number;
  webhookId: number;
  event: string;
  messageId: string;
  body: string;
  state: 'pending' | 'success' | 'failed';
  attempts: number;
  nextAttemptMs: number | null;
  /** The node whose lease it is under (src/shared/node-id.ts), null when none holds it. */
  leaseNode: string | null;
  /** When that lease ends, epoch ms (null when none holds it). */
  leaseUntilMs: number | null;
}

/**
 * A delivery with its last attempt (attempt ids grow, so the last is the highest). The aliases
 * are quoted so that both stores return them in camelCase.
 */
export const VIEW_SQL = `SELECT d.id, d.event, d.message_id AS "messageId", d.body, d.state, d.next_attempt_ms AS "nextAttemptMs", d.redeliveries, d.created_at AS "createdAt",
         (SELECT count(*) FROM webhook_attempts x WHERE x.delivery_id = d.id) AS "totalAttempts",
         a.attempted_at AS "lastAttemptedAt", a.response_status AS "lastResponseStatus", a.error AS "lastError"
  FROM webhook_deliveries d
  LEFT JOIN webhook_attempts a ON a.id = (SELECT max(y.id) FROM webhook_attempts y WHERE y.delivery_id = d.id)`;

/** Back to the queue with a fresh set of attempts, due at the parameter `due` (`?` or `$1`). */
export function requeueSql(due: string): string {
  return `UPDATE webhook_deliveries
  SET state = 'pending', attempts = 0, next_attempt_ms = ${due}, lease_until_ms = NULL, lease_token = NULL, lease_node = NULL, redeliveries = redeliveries + 1`;
}

/** The deliveries (`d`, joined to their webhook `w`) due at the parameter `now` and not leased. */
export function dueSql(now: string): string {
  return `d.state = 'pending' AND d.next_attempt_ms <= ${now} AND w.active = 1 AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ${now})`;
}

/** What a dispatcher needs of a claimed delivery `d` and its webhook `w`. */
export const CLAIMED_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.event, d.message_id AS "messageId", d.body, d.attempts, d.redeliveries, d.lease_token AS "leaseToken", w.url, w.secret`;

/** The columns of webhook_attempts an AttemptRecord fills, in the order `attemptValues` gives them. */
export const ATTEMPT_INSERT_COLUMNS =
  'delivery_id, webhook_id, event, status, response_status, response_ms, error, retry_count, redelivery, attempted_at';

/** The values of ATTEMPT_INSERT_COLUMNS for one attempt. */
export function attemptValues(a: AttemptRecord): unknown[] {
  return [a.deliveryId, a.webhookId, a.event, a.status, a.responseStatus, a.responseMs, a.error, a.retryCount, a.redelivery, a.attemptedAt];
}

/** An attempt as AttemptRow. */
export const ATTEMPT_COLUMNS = `id, delivery_id AS "deliveryId", event, status, response_status AS "responseStatus", response_ms AS "responseMs", error, retry_count AS "retryCount",
                redelivery, attempted_at AS "attemptedAt"`;

/** A delivery as DeliveryStateRow. */
export const DELIVERY_STATE_COLUMNS = `id, webhook_id AS "webhookId", event, message_id AS "messageId", body, state, attempts, next_attempt_ms AS "nextAttemptMs",
  lease_node AS "leaseNode", lease_until_ms AS "leaseUntilMs"`;

/** The columns of webhook_deliveries a NewDelivery fills, in the order `deliveryValues` gives them. */
export const DELIVERY_INSERT_COLUMNS = 'webhook_id, event, message_id, body, state, attempts, next_attempt_ms, created_at';

/** The values of DELIVERY_INSERT_COLUMNS for one delivery (a new delivery has made no attempt). */
export function deliveryValues(d: NewDelivery): unknown[] {
  return [d.webhookId, d.event, d.messageId, d.body, d.state, 0, d.nextAttemptMs, d.createdAt];
}

/** Deliveries in `ids` order (ascending, repeats kept), leaving out the ids `byId` has not. */
export function inIdOrder<T>(ids: number[], byId: (id: number) => T | undefined): T[] {
  return [...ids]
    .sort((a, b) => a - b)
    .map(byId)
    .filter((r): r is T => r !== undefined);
}

/**
 * The outbox, the delivery queue and the attempt history. Every method that changes the queue is
 * one statement or runs inside the caller's `write` transaction, so a crash leaves either the old
 * or the new state.
 */
export class WebhookQueueRepo {
  private readonly claimStmt: Statement<[{ until: number; token: string; node: string; now: number }], { id: number }>;
  private readonly insertDeliveryStmt: Statement<unknown[]>;

  constructor(private readonly db: Database) {
    // One UPDATE picks and leases the oldest due delivery of an active webhook: two dispatchers
    // racing for it serialise on SQLite's write lock and the loser finds it leased.
    this.claimStmt = db.prepare(
      `UPDATE webhook_deliveries SET lease_until_ms = @until, lease_token = @token, lease_node = @node
       WHERE id = (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                   WHERE ${dueSql('@now')}
                   ORDER BY d.next_attempt_ms, d.id LIMIT 1)
       RETURNING id`,
    );
    this.insertDeliveryStmt = db.prepare(`INSERT INTO webhook_deliveries (${DELIVERY_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  /** One of this repository's own steps in an IMMEDIATE transaction; work spanning repositories uses `Store.transaction`. */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** The oldest captured changes, in the order they were made. */
  async outbox(limit: number): Promise<OutboxRow[]> {
    return (this.db.prepare('SELECT * FROM webhook_outbox ORDER BY id LIMIT ?').all(limit) as RawOutbox[]).map(toOutbox);
  }

  async deleteOutbox(ids: number[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM webhook_outbox WHERE id = ?');
    for (const id of ids) del.run(id);
  }

  /** The id of the newest captured change (0 when none): a writer that must not raise events notes it first. */
  async lastOutboxId(): Promise<number> {
    return (this.db.prepare('SELECT coalesce(max(id), 0) AS id FROM webhook_outbox').get() as { id: number }).id;
  }

  /** Drops the changes captured after `afterId`; call in the writer's own transaction, where they are all its own. */
  async discardCapturesAfter(afterId: number): Promise<void> {
    this.db.prepare('DELETE FROM webhook_outbox WHERE id > ?').run(afterId);
  }

  async hasOutbox(): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM webhook_outbox LIMIT 1').get() !== undefined;
  }

  async addDelivery(d: NewDelivery): Promise<number> {
    return Number(this.insertDeliveryStmt.run(...deliveryValues(d)).lastInsertRowid);
  }

  /** True when some delivery of an active webhook is due and not leased: a read, no write lock. */
  async hasDue(nowMs: number): Promise<boolean> {
    return (
      this.db
        .prepare(`SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${dueSql('@now')} LIMIT 1`)
        .get({ now: nowMs }) !== undefined
    );
  }

  /**
   * Leases the oldest due delivery to `node` (src/shared/node-id.ts) until `leaseUntilMs`, or
   * returns undefined when none is due. A lease past its time is free again: the delivery of a
   * node that died is claimed by the next dispatcher, and sent with the same message id.
   */
  async claim(nowMs: number, leaseUntilMs: number, token: string, node: string): Promise<ClaimedDelivery | undefined> {
    return this.write(() => {
      const hit = this.claimStmt.get({ until: leaseUntilMs, token, node, now: nowMs });
      if (!hit) return undefined;
      return this.db
        .prepare(`SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`)
        .get(hit.id) as ClaimedDelivery;
    });
  }

  /**
   * Records an attempt and moves the delivery on (to `next` state, due again at `nextAttemptMs`),
   * only while `token` still holds its lease. False when the lease was lost or the webhook
   * deleted meanwhile: then nothing is written.
   */
  async complete(
    token: string,
    attempt: AttemptRecord,
    next: { state: 'pending' | 'success' | 'failed'; nextAttemptMs: number | null },
  ): Promise<boolean> {
    return this.write(() => {
      const changed = this.db
        .prepare(
          `UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, next_attempt_ms = ?, lease_until_ms = NULL, lease_token = NULL, lease_node = NULL
           WHERE id = ? AND lease_token = ?`,
        )
        .run(next.state, next.nextAttemptMs, attempt.deliveryId, token).changes;
      if (changed === 0) return false;
      this.addAttemptSync(attempt);
      return true;
    });
  }

  async addAttempt(a: AttemptRecord): Promise<void> {
    this.addAttemptSync(a);
  }

  private addAttemptSync(a: AttemptRecord): void {
    this.db
      .prepare(`INSERT INTO webhook_attempts (${ATTEMPT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...attemptValues(a));
  }

  /** The newest `limit` attempts of a webhook, newest first. */
  async attempts(webhookId: number, limit: number): Promise<AttemptRow[]> {
    return this.db
      .prepare(
        `SELECT ${ATTEMPT_COLUMNS}
         FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
      )
      .all(webhookId, limit) as AttemptRow[];
  }

  async attemptCounts(webhookId: number): Promise<{ total: number; successful: number; failed: number }> {
    const r = this.db
      .prepare(
        `SELECT count(*) AS total, coalesce(sum(status = 'success'), 0) AS successful, coalesce(sum(status = 'failed'), 0) AS failed
         FROM webhook_attempts WHERE webhook_id = ?`,
      )
      .get(webhookId) as { total: number; successful: number; failed: number };
    return r;
  }

  /** Queue state of the deliveries of a webhook (all when `webhookId` is undefined), oldest first. */
  async deliveries(webhookId?: number): Promise<DeliveryStateRow[]> {
    const sql = `SELECT ${DELIVERY_STATE_COLUMNS}
                 FROM webhook_deliveries ${webhookId === undefined ? '' : 'WHERE webhook_id = ?'} ORDER BY id`;
    return (webhookId === undefined ? this.db.prepare(sql).all() : this.db.prepare(sql).all(webhookId)) as DeliveryStateRow[];
  }

  /** The failed deliveries of a webhook, oldest first, at most `limit`, with their last attempt. */
  async failedDeliveries(webhookId: number, limit: number): Promise<DeliveryViewRow[]> {
    return this.db
      .prepare(`${VIEW_SQL} WHERE d.webhook_id = ? AND d.state = 'failed' ORDER BY d.id LIMIT ?`)
      .all(webhookId, limit) as DeliveryViewRow[];
  }

  async countFailed(webhookId: number): Promise<number> {
    return (
      this.db.prepare(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND state = 'failed'`).get(webhookId) as {
        n: number;
      }
    ).n;
  }

  /** Deliveries of a webhook by id, in id order; ids of other webhooks are left out. */
  async deliveryViews(webhookId: number, ids: number[]): Promise<DeliveryViewRow[]> {
    const one = this.db.prepare(`${VIEW_SQL} WHERE d.webhook_id = ? AND d.id = ?`);
    return inIdOrder(ids, (id) => one.get(webhookId, id) as DeliveryViewRow | undefined);
  }

  /**
   * Puts a failed delivery of `webhookId` back in the queue, due at `nowMs`, with a fresh set of
   * attempts; the row keeps its id, body and message id. In one transaction, so two operators
   * redelivering it at once queue it once (the second finds it pending).
   */
  async redeliver(webhookId: number, deliveryId: number, nowMs: number): Promise<RedeliverOutcome> {
    return this.write(() => {
      const r = this.db.prepare('SELECT state FROM webhook_deliveries WHERE id = ? AND webhook_id = ?').get(deliveryId, webhookId) as
        { state: 'pending' | 'success' | 'failed' } | undefined;
      if (!r) return { kind: 'missing' };
      if (r.state !== 'failed') return { kind: 'not-failed', state: r.state };
      this.db.prepare(`${requeueSql('?')} WHERE id = ?`).run(nowMs, deliveryId);
      return { kind: 'queued', id: deliveryId };
    });
  }

  /** Puts every failed delivery of a webhook back in the queue (see `redeliver`); their ids, in order. */
  async redeliverAllFailed(webhookId: number, nowMs: number): Promise<number[]> {
    return this.write(() =>
      (
        this.db.prepare(`${requeueSql('?')} WHERE webhook_id = ? AND state = 'failed' RETURNING id`).all(nowMs, webhookId) as {
          id: number;
        }[]
      )
        .map((r) => r.id)
        .sort((a, b) => a - b),
    );
  }

  /** Deliveries waiting to be sent, and when the next one is due (null when none waits). */
  async pending(): Promise<{ count: number; nextDueMs: number | null }> {
    const r = this.db
      .prepare(
        `SELECT count(*) AS count, min(d.next_attempt_ms) AS nextDueMs FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'pending' AND w.active = 1`,
      )
      .get() as { count: number; nextDueMs: number | null };
    return r;
  }
}
