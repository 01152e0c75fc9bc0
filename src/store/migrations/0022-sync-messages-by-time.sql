-- Pruning messages by age and listing them `--since` a time read `received_at`; without an index
-- both scan every row, values included (docs/limits.md#sync-messages).
CREATE INDEX sync_messages_by_received ON sync_messages (received_at);
