-- Failed deliveries can be sent again (docs/webhooks.md, "Failed deliveries and redelivery").
-- A delivery that used its retries stays in webhook_deliveries as state 'failed' with its body
-- and `webhook-id` (nothing prunes it; only deleting the webhook removes it). A redelivery puts
-- the same row back in the queue with a fresh set of attempts, so the event keeps its id and
-- body, and the history below tells the rounds apart.

-- How many times an operator re-queued the delivery.
ALTER TABLE webhook_deliveries ADD COLUMN redeliveries INTEGER NOT NULL DEFAULT 0;

-- The round an attempt belongs to: 0 for the original attempts, n for those after the n-th
-- redelivery (retry_count counts from 0 again in each round).
ALTER TABLE webhook_attempts ADD COLUMN redelivery INTEGER NOT NULL DEFAULT 0;

-- The failed deliveries of a webhook, oldest first, for `sds webhooks deliveries ID --failed`
-- and `GET /api/webhooks/{id}/deliveries?status=failed`.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (webhook_id, id) WHERE state = 'failed';
