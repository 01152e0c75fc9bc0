import { z } from 'zod';
import { EVENT_KINDS, MAX_DELIVERIES_LIMIT } from '../../core/webhooks/index.js';
import type { Describes } from './same-shape.js';
import type {
  removeWebhook,
  WebhookCreated as CoreWebhookCreated,
  WebhookReply as CoreWebhook,
  WebhookUpdated as CoreWebhookUpdated,
  DeliveryHistory as CoreDeliveryHistory,
  WebhookTestFailure as CoreTestFailure,
  WebhookTestSuccess as CoreTestSuccess,
  DeliveryState as CoreDeliveryState,
  FailedDeliveries as CoreFailedDeliveries,
  RedeliveredAll as CoreRedeliveredAll,
} from '../../core/webhooks/index.js';
import { Timestamp } from './common.js';

const EventKind = z.enum(EVENT_KINDS).meta({ description: 'event kind' });
const Id = z.int().min(1).meta({ example: 1 });

/** Path of the routes of one webhook. */
export const WebhookIdParams = z.object({ id: z.string().regex(/^\d+$/, 'must be a whole number ≥ 1').meta({ example: '1' }) });

/** Path of the routes of one delivery of a webhook. */
export const DeliveryIdParams = WebhookIdParams.extend({
  delivery_id: z
    .string()
    .regex(/^\d+$/, 'must be a whole number ≥ 1')
    .meta({ description: 'the delivery id (`delivery_id` of the history, `id` of the failed listing)', example: '7' }),
});

/** Query of the delivery history. */
export const DeliveriesQuery = z.object({
  limit: z
    .string()
    .optional()
    .meta({
      description: `records to list, 1 to ${MAX_DELIVERIES_LIMIT} (default 50): the newest attempts, or with status=failed the oldest failed deliveries`,
      example: '20',
    }),
  status: z.enum(['failed']).optional().meta({
    description: 'failed: list the deliveries that used all their attempts (with their payload) instead of the history of attempts',
  }),
});

/**
 * Body of POST /api/webhooks (docs/webhooks.md#managing-webhooks). Field types are checked here (400 USAGE); what the
 * values mean (http(s) URL, known event kinds, secret strength) is checked by the core
 * (400 WEBHOOK_INVALID), so the schema accepts any string in `events` and `url`.
 */
export const WebhookCreateBody = z
  .strictObject({
    name: z.string().meta({ example: 'analytics' }),
    url: z.string().meta({ description: 'http or https destination; https recommended', example: 'https://hooks.example.org/sds' }),
    events: z
      .array(z.string())
      .meta({ description: `event kinds: ${EVENT_KINDS.join(', ')}`, example: ['case_uploaded', 'case_modified'] }),
    secret: z.string().optional().meta({
      description: 'signing secret: 16 to 256 printable ASCII characters, or whsec_ + base64 of 24 to 64 bytes; generated when absent',
    }),
    active: z.boolean().optional().meta({ default: true }),
  })
  .meta({ id: 'WebhookCreateBody' });

/** Body of PUT /api/webhooks/{id}: any of the creation fields. */
export const WebhookUpdateBody = WebhookCreateBody.partial().meta({ id: 'WebhookUpdateBody' });

const WebhookBase = {
  id: Id,
  name: z.string(),
  url: z.string(),
  events: z.array(EventKind),
  active: z.boolean(),
};

const Webhook = z
  .strictObject({ ...WebhookBase, secret: z.string(), created_at: Timestamp, updated_at: Timestamp })
  .meta({ id: 'Webhook' });
export const WebhookList = z.array(Webhook).meta({ id: 'WebhookList' });
export const WebhookCreated = z.strictObject({ ...WebhookBase, secret: z.string(), created_at: Timestamp }).meta({ id: 'WebhookCreated' });
export const WebhookUpdated = z.strictObject({ ...WebhookBase, updated_at: Timestamp }).meta({ id: 'WebhookUpdated' });
export const WebhookDeleted = z.strictObject({ message: z.string(), id: Id }).meta({ id: 'WebhookDeleted' });

const ResponseTime = z
  .string()
  .regex(/^\d+ms$/)
  .meta({ example: '42ms' });

export const WebhookTestSuccess = z
  .strictObject({
    status: z.literal('success'),
    webhook_id: Id,
    test_payload_sent: z.strictObject({
      event: z.literal('webhook_test'),
      timestamp: Timestamp,
      data: z.strictObject({ message: z.string() }),
    }),
    response_status: z.int(),
    response_time: ResponseTime,
  })
  .meta({ id: 'WebhookTestSuccess' });

export const WebhookTestFailure = z
  .strictObject({
    status: z.literal('failed'),
    webhook_id: Id,
    error: z
      .enum(['WHK-002', 'WEBHOOK_UNREACHABLE', 'WEBHOOK_REJECTED'])
      .meta({ description: 'WHK-002: no answer in time; WEBHOOK_UNREACHABLE: no connection; WEBHOOK_REJECTED: a status that is not 2xx' }),
    details: z.string(),
    response_status: z.int().optional(),
    response_time: ResponseTime,
  })
  .meta({ id: 'WebhookTestFailure' });

const DeliveryRecord = z
  .strictObject({
    id: Id.meta({ description: 'the attempt id' }),
    delivery_id: Id.meta({ description: 'the delivery (event) this was an attempt of: the id redelivery takes' }),
    event: z.string(),
    status: z.enum(['success', 'failed']),
    response_status: z.int().nullable().meta({ description: 'null when no HTTP answer came back (timeout, refused connection)' }),
    response_time: ResponseTime,
    error: z.string().optional(),
    attempted_at: Timestamp,
    retry_count: z
      .int()
      .min(0)
      .optional()
      .meta({ description: 'on failed attempts: 0 first attempt, 1 to 3 retries (from 0 again after a redelivery)' }),
    redelivery: z.int().min(1).optional().meta({ description: 'on attempts made after the n-th redelivery of the delivery: n' }),
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryHistory = z
  .strictObject({
    webhook_id: Id,
    total_deliveries: z.int().min(0),
    successful: z.int().min(0),
    failed: z.int().min(0),
    deliveries: z.array(DeliveryRecord),
  })
  .meta({ id: 'WebhookDeliveryHistory' });

const DeliveryStateFields = {
  id: Id.meta({ description: 'the delivery id, as taken by POST /api/webhooks/{id}/deliveries/{delivery_id}/redeliver' }),
  event: z.string(),
  message_id: z
    .string()
    .meta({ description: 'the `webhook-id` header: the same on every attempt and redelivery', example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' }),
  status: z.enum(['pending', 'success', 'failed']),
  attempts: z.int().min(0).meta({ description: 'attempts recorded, over the original round and every redelivery' }),
  redeliveries: z.int().min(0).meta({ description: 'times it was redelivered' }),
  created_at: Timestamp,
  next_attempt_at: Timestamp.optional().meta({ description: 'when it is due, while pending' }),
  last_attempted_at: Timestamp.optional(),
  last_response_status: z.int().nullable().meta({ description: 'null when the last attempt got no HTTP answer' }),
  last_error: z.string().optional(),
};

/** A delivery (one event for one webhook) and where it stands. */
export const DeliveryState = z.strictObject(DeliveryStateFields).meta({ id: 'WebhookDeliveryState' });

export const FailedDeliveries = z
  .strictObject({
    webhook_id: Id,
    failed: z.int().min(0).meta({ description: 'failed deliveries in all; limit bounds only the list' }),
    deliveries: z.array(
      z
        .strictObject({
          ...DeliveryStateFields,
          status: z.literal('failed'),
          payload: z.unknown().meta({ description: 'the body it is sent with, parsed: {event, timestamp, webhook_id, data}' }),
        })
        .meta({ id: 'WebhookFailedDelivery' }),
    ),
  })
  .meta({ id: 'WebhookFailedDeliveries' });

export const RedeliveredAll = z
  .strictObject({
    webhook_id: Id,
    redelivered: z.int().min(0),
    delivery_ids: z.array(Id).meta({ description: 'the deliveries put back in the queue, in order' }),
  })
  .meta({ id: 'WebhookRedeliveredAll' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof Webhook, CoreWebhook>,
  Describes<typeof WebhookCreated, CoreWebhookCreated>,
  Describes<typeof WebhookUpdated, CoreWebhookUpdated>,
  Describes<typeof WebhookTestSuccess, CoreTestSuccess>,
  Describes<typeof WebhookTestFailure, CoreTestFailure>,
  Describes<typeof DeliveryHistory, CoreDeliveryHistory>,
  Describes<typeof DeliveryState, CoreDeliveryState>,
  Describes<typeof FailedDeliveries, CoreFailedDeliveries>,
  Describes<typeof RedeliveredAll, CoreRedeliveredAll>,
  Describes<typeof WebhookDeleted, Awaited<ReturnType<typeof removeWebhook>>>,
  Describes<typeof WebhookList, CoreWebhook[]>,
] = [true, true, true, true, true, true, true, true, true, true, true];
