/**
 * Outgoing webhooks and their subscription index on PostgreSQL
 * (docs/architecture.md#the-store-contract); the SQLite class is the reference.
 */
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import {
  SUBSCRIBERS_SQL,
  toWebhookRow,
  WEBHOOK_COLUMNS,
  type RawWebhook,
  type WebhookInput,
  type WebhookRow,
  type WebhooksRepo,
} from '../webhooks-repo.js';
import type { PgRunner } from './pg-runner.js';

/** Rewrites the subscription index of webhook `id`: the event kinds it subscribes to while active. */
async function index(r: PgRunner, id: number, w: Pick<WebhookInput, 'events' | 'active'>): Promise<void> {
  await r.run('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [id]);
  if (!w.active || w.events.length === 0) return;
  await r.run(
    'INSERT INTO webhook_subscriptions (event, webhook_id) SELECT e, $2::bigint FROM unnest($1::text[]) AS e ON CONFLICT DO NOTHING',
    [w.events, id],
  );
}

/**
 * The webhooks of a PostgreSQL store (see WebhooksRepo). A change of a webhook and of its index
 * run in one transaction; the UPDATE's row lock makes two changes of one webhook at once apply
 * one after the other, index included.
 */
export class PgWebhooksRepo implements RepoContract<WebhooksRepo> {
  constructor(private readonly db: PgRunner) {}

  /** Every webhook, in id order. */
  async list(): Promise<WebhookRow[]> {
    return (await this.db.rows<RawWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`)).map(toWebhookRow);
  }

  /** The webhook `id`, if any. */
  async get(id: number): Promise<WebhookRow | undefined> {
    return getWith(this.db, id);
  }

  /** Adds a webhook and indexes its subscriptions. */
  async create(w: WebhookInput): Promise<WebhookRow> {
    return this.db.atomic(async (r) => {
      const at = nowIso();
      const { id } = (await r.row<{ id: number }>(
        `INSERT INTO webhooks (name, url, events, active, secret, created_ms, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [w.name, w.url, JSON.stringify(w.events), w.active ? 1 : 0, w.secret, Date.parse(at), at, at],
      ))!;
      await index(r, id, w);
      return (await getWith(r, id))!;
    });
  }

  /** Replaces a webhook's settings and index; undefined when there is no such webhook. */
  async update(id: number, w: WebhookInput): Promise<WebhookRow | undefined> {
    return this.db.atomic(async (r) => {
      const changed = await r.run(
        'UPDATE webhooks SET name = $1, url = $2, events = $3, active = $4, secret = $5, updated_at = $6 WHERE id = $7',
        [w.name, w.url, JSON.stringify(w.events), w.active ? 1 : 0, w.secret, nowIso(), id],
      );
      if (changed === 0) return undefined;
      await index(r, id, w);
      return (await getWith(r, id))!;
    });
  }

  /** Deletes a webhook; its queued deliveries and history go with it (ON DELETE CASCADE). */
  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhooks WHERE id = $1', [id])) === 1;
  }

  /** Active webhooks subscribed to `event` that existed when the change was made. */
  async subscribers(event: string, atMs: number): Promise<{ id: number; lastEventUs: number }[]> {
    return this.db.rows<{ id: number; lastEventUs: number }>(
      `${SUBSCRIBERS_SQL} WHERE s.event = $1 AND w.active = 1 AND w.created_ms <= $2 ORDER BY w.id`,
      [event, atMs],
    );
  }

  /** Takes the next event timestamp of a webhook: `atUs`, or just after the last one taken (one statement, so two takers get two). */
  async reserveEventUs(id: number, atUs: number): Promise<number> {
    const r = await this.db.row<{ us: number }>(
      'UPDATE webhooks SET last_event_us = greatest(last_event_us + 1, $1) WHERE id = $2 RETURNING last_event_us AS us',
      [atUs, id],
    );
    return r?.us ?? atUs;
  }

  /** Records the timestamp of the newest event queued for a webhook. */
  async setLastEventUs(id: number, us: number): Promise<void> {
    await this.db.run('UPDATE webhooks SET last_event_us = $1 WHERE id = $2', [us, id]);
  }
}

async function getWith(r: PgRunner, id: number): Promise<WebhookRow | undefined> {
  const row = await r.row<RawWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
  return row && toWebhookRow(row);
}
