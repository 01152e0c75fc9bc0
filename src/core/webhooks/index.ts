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
export type { DeliverReport, DeliverySettings } from './delivery.js';
export {
  failedWebhookDeliveries,
  parseDeliveryId,
  redeliverAndSend,
  redeliverFailedWebhookDeliveries,
  redeliverWebhookDelivery,
} from './redelivery.js';
export { EVENT_KINDS, addWebhook, listWebhooks, parseWebhookId, removeWebhook, updateWebhook } from './webhooks.js';
export type { WebhookFields } from './webhooks.js';
