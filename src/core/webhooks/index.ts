/**
 * The webhooks module: outgoing webhooks, their delivery and redelivery, on top of the webhook
 * engine (src/webhooks).
 */
export {
  DELIVERY_ENV,
  MAX_DELIVERIES_LIMIT,
  deliverDueWebhooks,
  parseDeliveriesLimit,
  startWebhookDispatcher,
  testWebhook,
  webhookDeliveries,
  webhookSettings,
} from './delivery.js';
export type { DeliverReport, DeliveryHistory, DeliverySettings, WebhookTestFailure, WebhookTestSuccess } from './delivery.js';
export type { DeliveryState, FailedDeliveries, RedeliveredAll } from './redelivery.js';
export {
  failedWebhookDeliveries,
  parseDeliveryId,
  redeliverAndSend,
  redeliverFailedWebhookDeliveries,
  redeliverWebhookDelivery,
} from './redelivery.js';
export { EVENT_KINDS, addWebhook, listWebhooks, parseWebhookId, removeWebhook, updateWebhook } from './webhooks.js';
export type { WebhookCreated, WebhookFields, WebhookReply, WebhookUpdated } from './webhooks.js';
