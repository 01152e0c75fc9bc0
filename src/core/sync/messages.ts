import type { Store } from '../../store/open-store.js';
import type { StoredSyncMessage } from '../../store/sync-repo.js';
import { AppError } from '../../shared/errors.js';
import { parseSyncMessageQuery, type SyncMessageOptions } from './message-query.js';

/** The longest message name kept: a name, not a payload (the value is bounded by the body limit). */
const MAX_NAME = 1024;

/**
 * Keeps a message CSPro 8.1 logic sent with `syncmessage` (`POST /api/messages/`,
 * docs/sync.md#messages): `{timestamp, name, value?}` (`key` for `name` from older peers),
 * recorded with the device and account that sent it, received at `now` (default the current
 * time). The value is kept as its JSON text. Refused (USAGE) when the body is not an object
 * naming the message.
 */
export async function receiveSyncMessage(
  store: Store,
  raw: unknown,
  device: string,
  username: string,
  now = new Date(),
): Promise<{ id: number }> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('USAGE', 'a message must be a JSON object {timestamp, name, value}');
  }
  const body = raw as Record<string, unknown>;
  const name = body.name ?? body.key;
  if (typeof name !== 'string' || name.trim() === '')
    throw new AppError('USAGE', 'the message has no name (a non-empty text)', { field: 'name' });
  if (name.length > MAX_NAME) throw new AppError('USAGE', `the message name is longer than ${MAX_NAME} characters`, { field: 'name' });
  const sentAt = typeof body.timestamp === 'string' || typeof body.timestamp === 'number' ? String(body.timestamp) : '';
  const value = body.value === undefined ? null : JSON.stringify(body.value);
  const id = await store.transaction((tx) => tx.sync.recordMessage({ device, username, name, value, sentAt }, now.toISOString()));
  return { id };
}

/** A kept message as `sds messages list` and `GET /api/messages` show it (docs/sync.md#messages). */
export interface SyncMessageItem {
  /** Increases with each message received; `before` pages on it. */
  id: number;
  device: string;
  username: string;
  name: string;
  /** The value as the device sent it (a text or any JSON value); null when it sent none. */
  value: unknown;
  /** The device's own time, as it wrote it ('' when it gave none). */
  sent_at: string;
  /** When the server received it (ISO 8601 UTC); `since` filters on it. */
  received_at: string;
}

/** One page of kept messages, newest first; `total` counts what the filters select. */
export interface SyncMessageList {
  total: number;
  limit: number;
  offset: number;
  data: SyncMessageItem[];
}

function item(m: StoredSyncMessage): SyncMessageItem {
  return {
    id: m.id,
    device: m.device,
    username: m.username,
    name: m.name,
    value: m.value === null ? null : (JSON.parse(m.value) as unknown),
    sent_at: m.sentAt,
    received_at: m.receivedAt,
  };
}

/**
 * The kept messages, newest first (docs/sync.md#messages): filtered by `since` (received at or
 * after), `device` and `name`, paged by `limit` (1 to 1000, default 100) and `offset`, or by
 * `before` (the last id of the previous page), which stays put while new messages arrive. The
 * count and the page are read in one snapshot. Bad values are USAGE naming the field.
 */
export async function listSyncMessages(store: Store, opts: SyncMessageOptions = {}): Promise<SyncMessageList> {
  const q = parseSyncMessageQuery(opts);
  return store.readTransaction(async (tx) => ({
    total: await tx.sync.countMessages(q.filter),
    limit: q.limit,
    offset: q.offset,
    data: (await tx.sync.messages(q.filter, { limit: q.limit, offset: q.offset })).map(item),
  }));
}
