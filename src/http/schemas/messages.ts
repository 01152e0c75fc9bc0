import { z } from 'zod';
import type { SyncMessageItem as CoreMessageItem, SyncMessageList as CoreMessageList } from '../../core/sync/index.js';
import type { Describes } from './same-shape.js';
import { Timestamp } from './common.js';

const Whole = z.string().regex(/^\d+$/, 'must be a whole number ≥ 0');

/** Query of `GET /api/messages` (docs/sync.md#messages); the ranges are checked by the core. */
export const MessagesQuery = z.object({
  since: z
    .string()
    .optional()
    .meta({
      param: { description: 'only messages received at or after this ISO 8601 time (UTC when no zone)' },
      example: '2025-01-31T08:00:00Z',
    }),
  device: z
    .string()
    .optional()
    .meta({ param: { description: 'only messages of this device (`x-csw-device`)' }, example: 'tablet-07' }),
  name: z
    .string()
    .optional()
    .meta({ param: { description: 'only messages of this name' }, example: 'status' }),
  limit: Whole.optional().meta({ param: { description: 'page size, 1 to 1000 (default 100)' }, example: '100' }),
  offset: Whole.optional().meta({ param: { description: 'messages to skip (default 0)' }, example: '0' }),
  before: Whole.optional().meta({
    param: { description: 'only messages with an id below this one: the last id of the previous page (keyset paging)' },
    example: '4211',
  }),
});

/**
 * The reply to `POST /api/messages`: JSON `null`, CSWeb 8.1's body, which CSPro hands to the
 * logic that sent the message as `syncmessage`'s result (docs/sync.md#messages).
 */
export const SyncMessageReply = z.null().meta({
  id: 'SyncMessageReply',
  description: 'JSON `null`, as CSWeb 8.1 answers; `syncmessage` returns it to the logic as the text `null`',
});

/** A kept message (docs/sync.md#messages). */
const SyncMessageItem = z
  .strictObject({
    id: z.int().min(1).meta({ description: 'increases with each message received' }),
    device: z.string().meta({ description: 'the device that sent it (`x-csw-device`; `unknown` when absent)' }),
    username: z.string().meta({ description: 'the account that sent it' }),
    name: z.string(),
    value: z.unknown().meta({ description: 'the value as sent, a text or any JSON value; null when none was sent' }),
    sent_at: z.string().meta({ description: 'the device’s own time, as it wrote it (empty when none)' }),
    received_at: Timestamp.meta({ description: 'when the server received it' }),
  })
  .meta({ id: 'SyncMessageItem' });

/** A page of kept messages, newest first. */
export const SyncMessageList = z
  .strictObject({
    total: z.int().min(0).meta({ description: 'messages the filters select (`before` included)' }),
    limit: z.int().min(1),
    offset: z.int().min(0),
    data: z.array(SyncMessageItem),
  })
  .meta({ id: 'SyncMessageList' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [Describes<typeof SyncMessageItem, CoreMessageItem>, Describes<typeof SyncMessageList, CoreMessageList>] = [
  true,
  true,
];
