import { z } from 'zod';
import { EVENT_KINDS } from '../../core/webhooks.js';
import { MAX_DELIVERIES_LIMIT } from '../../core/webhook-delivery.js';
import { Timestamp } from './common.js';

const EventKind = z.enum(EVENT_KINDS).meta({ description: 'event kind (spec 6.1)' });
const Id = z.int().min(1).meta({ example: 1 });

/** Path of the routes of one webhook. */
export const WebhookIdParams = z.object({ id: z.string().regex(/^\d+$/, 'must be a whole number ≥ 1').meta({ example: '1' }) });

/** Query of the delivery history. */
export const DeliveriesQuery = z.object({
  limit: z.string().optional().meta({ description: `newest attempts to list, 1 to ${MAX_DELIVERIES_LIMIT} (default 50)`, example: '20' }),
});

/**
 * Body of POST /api/webhooks (spec 4.5). Field types are checked here (400 USAGE); what the
 * values mean (http(s) URL, known event kinds, secret strength) is checked by the core
 * (400 WEBHOOK_INVALID), so the schema accepts any string in `events` and `url`.
 */
export const WebhookCreateBody = z
  .strictObject({
    name: z.string().meta({ example: 'analytics' }),
    url: z.string().meta({ description: 'http or https destination; https recommended', example: 'https://hooks.example.org/sds' }),
    events: z.array(z.string()).meta({ description: `event kinds: ${EVENT_KINDS.join(', ')}`, example: ['case_uploaded', 'case_modified'] }),
    secret: z
      .string()
      .optional()
      .meta({ description: 'signing secret: 16 to 256 printable ASCII characters, or whsec_ + base64 of 24 to 64 bytes; generated when absent' }),
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

export const Webhook = z
  .strictObject({ ...WebhookBase, secret: z.string(), created_at: Timestamp, updated_at: Timestamp })
  .meta({ id: 'Webhook' });
export const WebhookList = z.array(Webhook).meta({ id: 'WebhookList' });
export const WebhookCreated = z.strictObject({ ...WebhookBase, secret: z.string(), created_at: Timestamp }).meta({ id: 'WebhookCreated' });
export const WebhookUpdated = z.strictObject({ ...WebhookBase, updated_at: Timestamp }).meta({ id: 'WebhookUpdated' });
export const WebhookDeleted = z.strictObject({ message: z.string(), id: Id }).meta({ id: 'WebhookDeleted' });

const ResponseTime = z.string().regex(/^\d+ms$/).meta({ example: '42ms' });

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
    error: z.enum(['WHK-002', 'WEBHOOK_UNREACHABLE', 'WEBHOOK_REJECTED']).meta({ description: 'WHK-002: no answer in time; WEBHOOK_UNREACHABLE: no connection; WEBHOOK_REJECTED: a status that is not 2xx' }),
    details: z.string(),
    response_status: z.int().optional(),
    response_time: ResponseTime,
  })
  .meta({ id: 'WebhookTestFailure' });

const DeliveryRecord = z
  .strictObject({
    id: Id,
    event: z.string(),
    status: z.enum(['success', 'failed']),
    response_status: z.int().optional().meta({ description: 'absent when no HTTP answer came back' }),
    response_time: ResponseTime,
    error: z.string().optional(),
    attempted_at: Timestamp,
    retry_count: z.int().min(0).optional().meta({ description: 'on failed attempts: 0 first attempt, 1 to 3 retries' }),
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
