import {
  addWebhook,
  listWebhooks,
  parseWebhookId,
  removeWebhook,
  updateWebhook,
  parseDeliveriesLimit,
  testWebhook,
  webhookDeliveries,
  webhookSettings,
  failedWebhookDeliveries,
  parseDeliveryId,
  redeliverFailedWebhookDeliveries,
  redeliverWebhookDelivery,
} from '../../core/webhooks/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { readJson } from '../read-body.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  DeliveriesQuery,
  DeliveryHistory,
  DeliveryIdParams,
  DeliveryState,
  FailedDeliveries,
  RedeliveredAll,
  WebhookCreateBody,
  WebhookCreated,
  WebhookDeleted,
  WebhookIdParams,
  WebhookList,
  WebhookTestFailure,
  WebhookTestSuccess,
  WebhookUpdateBody,
  WebhookUpdated,
} from '../schemas/webhooks.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const BODY_LIMIT = 16 * 1024;
const NOT_FOUND = { 404: json(ErrorBody, 'no webhook of that id (`NOT_FOUND`)') };
const BAD_ID = json(ErrorBody, 'the id is not a whole number (`USAGE`)');
const BAD_BODY = json(
  ErrorBody,
  'a field has the wrong type or is unknown (`USAGE`), the body is not JSON (`API-003`), or a value is invalid (`WEBHOOK_INVALID`)',
);

/** Outgoing webhook routes (docs/webhooks.md#managing-webhooks), all for administrators. */
export function webhookRoutes(api: ApiBuilder, { store, config, clock }: RouteDeps): void {
  const id = (raw: Record<string, string>) => parseWebhookId(validate(WebhookIdParams, raw, 'path').id);

  api.route({
    method: 'get',
    path: '/api/webhooks',
    summary: 'List outgoing webhooks, secrets included',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    responses: { 200: json(WebhookList, 'webhooks, by id') },
    handler: async (c) => c.json(await listWebhooks(store)),
  });

  api.route({
    method: 'post',
    path: '/api/webhooks',
    summary: 'Create an outgoing webhook',
    description:
      'Without `secret`, one is generated (`whsec_` + base64 of 32 random bytes) and returned. Every delivery carries ' +
      '`X-Service-Signature` and the Standard Webhooks headers; see docs/webhooks.md.',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    audit: { action: 'webhooks.add' },
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: WebhookCreateBody } } } },
    responses: { 201: json(WebhookCreated, 'created'), 400: BAD_BODY },
    handler: async (c) => c.json(await addWebhook(store, await readJson(c, WebhookCreateBody)), 201),
  });

  api.route({
    method: 'put',
    path: '/api/webhooks/{id}',
    summary: 'Change some fields of a webhook',
    description:
      'Fields left out keep their value. `active: false` stops new events at once; queued deliveries wait until it is active again.',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    audit: { action: 'webhooks.update', target: 'webhook:{id}' },
    bodyLimit: BODY_LIMIT,
    request: { params: WebhookIdParams, body: { required: true, content: { 'application/json': { schema: WebhookUpdateBody } } } },
    responses: { 200: json(WebhookUpdated, 'updated'), 400: BAD_BODY, ...NOT_FOUND },
    handler: async (c) => {
      const webhookId = id(c.req.param());
      return c.json(await updateWebhook(store, webhookId, await readJson(c, WebhookUpdateBody)));
    },
  });

  api.route({
    method: 'delete',
    path: '/api/webhooks/{id}',
    summary: 'Delete a webhook; its queued deliveries are never sent',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    audit: { action: 'webhooks.remove', target: 'webhook:{id}' },
    request: { params: WebhookIdParams },
    responses: { 200: json(WebhookDeleted, 'deleted'), 400: BAD_ID, ...NOT_FOUND },
    handler: async (c) => c.json(await removeWebhook(store, id(c.req.param()))),
  });

  api.route({
    method: 'post',
    path: '/api/webhooks/{id}/test',
    summary: 'Send a webhook_test event now and report the answer',
    description:
      'Waits at most 30 s (`SDS_WEBHOOK_TEST_TIMEOUT_MS`). Works on inactive webhooks too. The attempt is recorded in the delivery history.',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    request: { params: WebhookIdParams },
    responses: {
      200: json(WebhookTestSuccess, 'the receiver answered 2xx'),
      400: BAD_ID,
      ...NOT_FOUND,
      502: json(
        WebhookTestFailure,
        'no answer in time (`WHK-002`), no connection (`WEBHOOK_UNREACHABLE`) or a status that is not 2xx (`WEBHOOK_REJECTED`)',
      ),
    },
    handler: async (c) => {
      const r = await testWebhook(store, id(c.req.param()), { settings: webhookSettings(config.env, config.webhooks) });
      return c.json(r, r.status === 'success' ? 200 : 502);
    },
  });

  api.route({
    method: 'get',
    path: '/api/webhooks/{id}/deliveries',
    summary: 'Delivery history of a webhook (every attempt, newest first), or its failed deliveries',
    description:
      'Each attempt (retries included) is one record; the counts cover all of them, `limit` only the list. ' +
      'With `status=failed`: the deliveries that used all their attempts without success, oldest first, each with its ' +
      'payload, `webhook-id` (`message_id`) and last error; they stay until redelivered or the webhook is deleted.',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    request: { params: WebhookIdParams, query: DeliveriesQuery },
    responses: {
      200: json(
        DeliveryHistory.or(FailedDeliveries),
        'the history of attempts (`WebhookDeliveryHistory`), or with `status=failed` the failed deliveries (`WebhookFailedDeliveries`)',
      ),
      400: json(ErrorBody, 'bad id, limit or status (`USAGE`)'),
      ...NOT_FOUND,
    },
    handler: async (c) => {
      const webhookId = id(c.req.param());
      const q = validate(DeliveriesQuery, c.req.query(), 'query');
      const limit = parseDeliveriesLimit(q.limit);
      return c.json(
        q.status === 'failed' ? await failedWebhookDeliveries(store, webhookId, limit) : await webhookDeliveries(store, webhookId, limit),
      );
    },
  });

  api.route({
    method: 'post',
    path: '/api/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    summary: 'Send a failed delivery again, with the same webhook-id and body',
    description:
      'Puts the delivery back in the queue, due now, with a fresh set of attempts and retries; the dispatcher of the server ' +
      'sends it within `SDS_WEBHOOK_POLL_MS` (an inactive webhook keeps it queued until it is active). The body and the ' +
      '`webhook-id` are the original ones, so a receiver can deduplicate; `webhook-timestamp` and the signatures are ' +
      'those of the new attempt. Only a failed delivery can be redelivered: 409 `CONFLICT` for one still pending or delivered.',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    request: { params: DeliveryIdParams },
    responses: {
      202: json(DeliveryState, 'queued again: status `pending`, due at `next_attempt_at`'),
      400: json(ErrorBody, 'an id is not a whole number (`USAGE`)'),
      404: json(ErrorBody, 'no webhook of that id, or no delivery of that id for this webhook (`NOT_FOUND`)'),
      409: json(ErrorBody, 'the delivery is not failed: still pending, or delivered (`CONFLICT`; the message says which)'),
    },
    handler: async (c) => {
      const p = validate(DeliveryIdParams, c.req.param(), 'path');
      return c.json(await redeliverWebhookDelivery(store, parseWebhookId(p.id), parseDeliveryId(p.delivery_id), { now: clock }), 202);
    },
  });

  api.route({
    method: 'post',
    path: '/api/webhooks/{id}/redeliver-failed',
    summary: 'Send every failed delivery of a webhook again',
    description:
      'Puts every failed delivery of the webhook back in the queue, as the redeliver route does for one. ' +
      'None failed is not an error (`redelivered: 0`). See docs/webhooks.md, "Recovering after a receiver outage".',
    tags: ['webhooks'],
    permission: 'webhooks.manage',
    request: { params: WebhookIdParams },
    responses: { 202: json(RedeliveredAll, 'queued again'), 400: BAD_ID, ...NOT_FOUND },
    handler: async (c) => c.json(await redeliverFailedWebhookDeliveries(store, id(c.req.param()), { now: clock }), 202),
  });
}
