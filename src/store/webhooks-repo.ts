import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export interface WebhookRow {
  id: number;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  secret: string;
  createdMs: number;
  createdAt: string;
  updatedAt: string;
}

export type WebhookInput = Pick<WebhookRow, 'name' | 'url' | 'events' | 'active' | 'secret'>;

/** A webhook row as the database returns it (read by both stores). */
export interface RawWebhook {
  id: number;
  name: string;
  url: string;
  events: string;
  active: number;
  secret: string;
  created_ms: number;
  created_at: string;
  updated_at: string;
}

/** The columns of RawWebhook. */
export const WEBHOOK_COLUMNS = 'id, name, url, events, active, secret, created_ms, created_at, updated_at';

/** A webhook as the rest of sds sees it. */
export function toWebhookRow(r: RawWebhook): WebhookRow {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    active: r.active === 1,
    secret: r.secret,
    createdMs: r.created_ms,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The subscribed webhooks (`s` joined to `w`), filtered by the caller. */
export const SUBSCRIBERS_SQL = `SELECT w.id, w.last_event_us AS "lastEventUs" FROM webhook_subscriptions s JOIN webhooks w ON w.id = s.webhook_id`;

/**
 * Outgoing webhooks and the subscription index the capture triggers read (migration 0009): the
 * index holds the event kinds of active webhooks only, rewritten with every change of a webhook
 * in the same transaction.
 */
export class WebhooksRepo {
  constructor(private readonly db: Database) {}

  async list(): Promise<WebhookRow[]> {
    return (this.db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`).all() as RawWebhook[]).map(toWebhookRow);
  }

  async get(id: number): Promise<WebhookRow | undefined> {
    return this.getSync(id);
  }

  private getSync(id: number): WebhookRow | undefined {
    const r = this.db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`).get(id) as RawWebhook | undefined;
    return r && toWebhookRow(r);
  }

  async create(w: WebhookInput): Promise<WebhookRow> {
    return this.db
      .transaction(() => {
        const at = nowIso();
        const id = Number(
          this.db
            .prepare(
              'INSERT INTO webhooks (name, url, events, active, secret, created_ms, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            )
            .run(w.name, w.url, JSON.stringify(w.events), w.active ? 1 : 0, w.secret, Date.parse(at), at, at).lastInsertRowid,
        );
        this.index(id, w);
        return this.getSync(id)!;
      })
      .immediate();
  }

  async update(id: number, w: WebhookInput): Promise<WebhookRow | undefined> {
    return this.db
      .transaction(() => {
        const changed = this.db
          .prepare('UPDATE webhooks SET name = ?, url = ?, events = ?, active = ?, secret = ?, updated_at = ? WHERE id = ?')
          .run(w.name, w.url, JSON.stringify(w.events), w.active ? 1 : 0, w.secret, nowIso(), id).changes;
        if (changed === 0) return undefined;
        this.index(id, w);
        return this.getSync(id)!;
      })
      .immediate();
  }

  /** Deletes a webhook; its queued deliveries and history go with it (ON DELETE CASCADE). */
  async delete(id: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(id).changes === 1;
  }

  private index(id: number, w: Pick<WebhookInput, 'events' | 'active'>): void {
    this.db.prepare('DELETE FROM webhook_subscriptions WHERE webhook_id = ?').run(id);
    if (!w.active) return;
    const add = this.db.prepare('INSERT OR IGNORE INTO webhook_subscriptions (event, webhook_id) VALUES (?, ?)');
    for (const e of w.events) add.run(e, id);
  }

  /** Active webhooks subscribed to `event` that existed when the change was made. */
  async subscribers(event: string, atMs: number): Promise<{ id: number; lastEventUs: number }[]> {
    return this.db
      .prepare(`${SUBSCRIBERS_SQL} WHERE s.event = ? AND w.active = 1 AND w.created_ms <= ? ORDER BY w.id`)
      .all(event, atMs) as { id: number; lastEventUs: number }[];
  }

  /** Takes the next event timestamp of a webhook: `atUs`, or just after the last one taken. */
  async reserveEventUs(id: number, atUs: number): Promise<number> {
    const r = this.db
      .prepare('UPDATE webhooks SET last_event_us = max(last_event_us + 1, ?) WHERE id = ? RETURNING last_event_us AS us')
      .get(atUs, id) as { us: number } | undefined;
    return r?.us ?? atUs;
  }

  /** Records the timestamp of the newest event queued for a webhook. */
  async setLastEventUs(id: number, us: number): Promise<void> {
    this.db.prepare('UPDATE webhooks SET last_event_us = ? WHERE id = ?').run(us, id);
  }
}
