import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { WebhookInput, WebhookRow } from '../../store/webhooks-repo.js';
import { AppError } from '../../shared/errors.js';
import { EVENT_KINDS, isEventKind, TEST_EVENT, type EventKind } from '../../webhooks/event-kinds.js';
import { generateSecret, WHSEC_PREFIX } from '../../webhooks/signing.js';

export { EVENT_KINDS } from '../../webhooks/event-kinds.js';

/** A webhook as listed (docs/webhooks.md#managing-webhooks), secret included: only administrators may list them. */
export interface WebhookReply {
  id: number;
  name: string;
  url: string;
  events: EventKind[];
  active: boolean;
  secret: string;
  created_at: string;
  updated_at: string;
}

/** Reply of the creation (docs/webhooks.md#managing-webhooks): the webhook without updated_at. */
export type WebhookCreated = Omit<WebhookReply, 'updated_at'>;

/** Reply of the update (docs/webhooks.md#managing-webhooks): no secret, no created_at. */
export type WebhookUpdated = Omit<WebhookReply, 'secret' | 'created_at'>;

export interface WebhookFields {
  name?: unknown;
  url?: unknown;
  events?: unknown;
  secret?: unknown;
  active?: unknown;
}

const MAX_NAME = 100;
const MAX_URL = 2048;

function invalid(field: string, message: string): AppError {
  return new AppError('WEBHOOK_INVALID', `${field}: ${message}`, { field });
}

function checkName(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw invalid('name', 'a non-empty name is required');
  if (v.trim().length > MAX_NAME) throw invalid('name', `at most ${MAX_NAME} characters`);
  return v.trim();
}

function checkUrl(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw invalid('url', 'a destination URL is required');
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    throw invalid('url', `"${v}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw invalid('url', `only http and https destinations are allowed, got ${u.protocol.replace(/:$/, '')}`);
  if (v.length > MAX_URL) throw invalid('url', `at most ${MAX_URL} characters`);
  return v.trim();
}

function checkEvents(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid('events', `a non-empty list of event kinds is required (${EVENT_KINDS.join(', ')})`);
  const out: string[] = [];
  for (const e of v) {
    if (typeof e !== 'string' || !isEventKind(e)) {
      const hint = e === TEST_EVENT ? `; ${TEST_EVENT} is sent by the test operation to any webhook and cannot be subscribed` : '';
      throw invalid('events', `unknown event kind "${String(e)}"; known: ${EVENT_KINDS.join(', ')}${hint}`);
    }
    if (!out.includes(e)) out.push(e);
  }
  return out;
}

/**
 * A secret is either the Standard Webhooks form (`whsec_` + base64 of 24 to 64 bytes) or 16 to
 * 256 printable ASCII characters without spaces: long enough to resist guessing, and the same
 * bytes in every receiver's language.
 */
function checkSecret(v: unknown): string {
  if (typeof v !== 'string') throw invalid('secret', 'must be a string');
  if (v.startsWith(WHSEC_PREFIX)) {
    const b64 = v.slice(WHSEC_PREFIX.length);
    const key = Buffer.from(b64, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || key.toString('base64') !== b64 || key.length < 24 || key.length > 64) {
      throw invalid('secret', `a ${WHSEC_PREFIX} secret must be followed by the base64 of 24 to 64 bytes`);
    }
    return v;
  }
  if (!/^[\x21-\x7e]{16,256}$/.test(v))
    throw invalid('secret', 'must be 16 to 256 printable ASCII characters without spaces (or whsec_ + base64)');
  return v;
}

function checkActive(v: unknown): boolean {
  if (typeof v !== 'boolean') throw invalid('active', 'must be true or false');
  return v;
}

function toReply(w: WebhookRow): WebhookReply {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events.filter(isEventKind),
    active: w.active,
    secret: w.secret,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** Checks a webhook id given as text or number (path segments, CLI arguments). */
export function parseWebhookId(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new AppError('USAGE', `a webhook id is a whole number ≥ 1, got "${String(v)}"`, { field: 'id' });
  return n;
}

/** The webhook of `id`, or NOT_FOUND. */
export async function requireWebhook(store: StoreScope, id: number): Promise<WebhookRow> {
  const w = await store.webhooks.get(id);
  if (!w) throw new AppError('NOT_FOUND', `webhook ${id} not found`, { webhook: id });
  return w;
}

/** All webhooks by id, secrets included (docs/webhooks.md#managing-webhooks). */
export async function listWebhooks(store: Store): Promise<WebhookReply[]> {
  return (await store.webhooks.list()).map(toReply);
}

/**
 * Creates a webhook. Without a secret one is generated (`whsec_` + 32 random bytes in base64)
 * and returned in the reply: the only time the caller needs to ask for it.
 */
export async function addWebhook(store: Store, input: WebhookFields): Promise<WebhookCreated> {
  const w: WebhookInput = {
    name: checkName(input.name),
    url: checkUrl(input.url),
    events: checkEvents(input.events),
    secret: input.secret === undefined ? generateSecret() : checkSecret(input.secret),
    active: input.active === undefined ? true : checkActive(input.active),
  };
  const { updated_at: _, ...created } = toReply(await store.webhooks.create(w));
  return created;
}

/**
 * Changes the given fields of a webhook, the others kept. Deactivating it stops new events at
 * once; deliveries already queued wait, unsent, until it is active again.
 */
export async function updateWebhook(store: Store, id: number, patch: WebhookFields): Promise<WebhookUpdated> {
  // Read and rewritten in one transaction: a concurrent update cannot be lost between the two.
  return store.transaction(async (tx) => {
    const cur = await requireWebhook(tx, id);
    const keys = (Object.keys(patch) as (keyof WebhookFields)[]).filter((k) => patch[k] !== undefined);
    if (keys.length === 0) throw new AppError('USAGE', 'nothing to change: give at least one of name, url, events, secret, active');
    const next: WebhookInput = {
      name: patch.name === undefined ? cur.name : checkName(patch.name),
      url: patch.url === undefined ? cur.url : checkUrl(patch.url),
      events: patch.events === undefined ? cur.events : checkEvents(patch.events),
      secret: patch.secret === undefined ? cur.secret : checkSecret(patch.secret),
      active: patch.active === undefined ? cur.active : checkActive(patch.active),
    };
    const w = await tx.webhooks.update(id, next);
    if (!w) throw new AppError('NOT_FOUND', `webhook ${id} not found`, { webhook: id });
    return { id: w.id, name: w.name, url: w.url, events: w.events.filter(isEventKind), active: w.active, updated_at: w.updatedAt };
  });
}

/** Deletes a webhook with its queued deliveries (never sent) and its history. */
export async function removeWebhook(store: Store, id: number): Promise<{ message: string; id: number }> {
  if (!(await store.webhooks.delete(id))) throw new AppError('NOT_FOUND', `webhook ${id} not found`, { webhook: id });
  return { message: `Webhook ${id} deleted`, id };
}
