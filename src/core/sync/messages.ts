import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';

/** The longest message name kept: a name, not a payload (the value is bounded by the body limit). */
const MAX_NAME = 1024;

/**
 * Keeps a message CSPro 8.1 logic sent with `syncmessage` (`POST /api/messages/`,
 * docs/sync.md#messages): `{timestamp, name, value?}` (`key` for `name` from older peers),
 * recorded with the device and account that sent it. The value is kept as its JSON text.
 * Refused (USAGE) when the body is not an object naming the message.
 */
export function receiveSyncMessage(store: Store, raw: unknown, device: string, username: string): { id: number } {
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
  const id = store.transaction(() => store.sync.recordMessage({ device, username, name, value, sentAt }));
  return { id };
}
