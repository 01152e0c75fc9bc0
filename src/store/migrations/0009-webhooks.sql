-- Outgoing webhooks (docs/webhooks.md#managing-webhooks, docs/webhooks.md#events-and-payloads): the
-- webhooks, an outbox of data changes captured by
-- triggers in the transaction that makes them, the delivery queue and the history of attempts.

CREATE TABLE webhooks (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  name          TEXT NOT NULL,
  url           TEXT NOT NULL,
  events        TEXT NOT NULL,              -- JSON array of event kinds
  active        INTEGER NOT NULL DEFAULT 1,
  secret        TEXT NOT NULL,
  -- Event timestamps of one webhook are made strictly increasing (microseconds), so the spec's
  -- deduplication pair (webhook_id, timestamp) names one event even inside a batch import.
  last_event_us INTEGER NOT NULL DEFAULT 0,
  created_ms    INTEGER NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

-- (event kind, webhook) of every ACTIVE webhook, kept by the webhooks repo. The capture triggers
-- below look here first, so a store without subscribers pays one index probe per written case.
CREATE TABLE webhook_subscriptions (
  event         TEXT NOT NULL,
  webhook_id    INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  PRIMARY KEY (event, webhook_id)
) WITHOUT ROWID;

-- One row per captured change, written by the triggers in the writer's own transaction: a change
-- that commits has its row, one that rolls back has none. The webhooks engine turns rows into
-- events and deliveries (diffs, payloads, subscribers) later and deletes them in that same step.
-- A plain rowid, not AUTOINCREMENT: rows are read in id order and deleted in one step, nothing
-- keeps an id, and AUTOINCREMENT would add a write of sqlite_sequence to every captured change.
CREATE TABLE webhook_outbox (
  id              INTEGER PRIMARY KEY,
  topic           TEXT NOT NULL CHECK (topic IN ('case', 'dictionary')),
  created_ms      INTEGER NOT NULL,
  dictionary_id   INTEGER NOT NULL,
  dictionary_name TEXT NOT NULL,
  -- case changes: NULL old_* columns mean the case is new
  guid            TEXT,
  old_key         TEXT,
  old_label       TEXT,
  old_data        TEXT,
  old_notes       TEXT,
  old_verified    INTEGER,
  old_deleted     INTEGER,
  new_key         TEXT,
  new_label       TEXT,
  new_data        TEXT,
  new_notes       TEXT,
  new_verified    INTEGER,
  new_deleted     INTEGER,
  modified_at     TEXT,
  -- dictionary uploads
  dict_label      TEXT,
  dict_version    TEXT,
  dict_created    INTEGER
);

-- A new case's event (case_uploaded) carries its summary only, so its data and notes, the bulk of
-- the row, are not copied: that keeps an import with a case_uploaded subscriber close to the
-- speed of one without (bench/README.md).
CREATE TRIGGER webhook_capture_case_insert AFTER INSERT ON cases
WHEN EXISTS (SELECT 1 FROM webhook_subscriptions WHERE event = 'case_uploaded')
BEGIN
  INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name, guid,
    new_key, new_label, new_verified, new_deleted, modified_at)
  VALUES ('case', CAST(unixepoch('now', 'subsec') * 1000 AS INTEGER), NEW.dictionary_id,
    (SELECT name FROM dictionaries WHERE id = NEW.dictionary_id), NEW.guid,
    NEW.case_key, NEW.label, NEW.verified, NEW.deleted, NEW.modified_at);
END;

CREATE TRIGGER webhook_capture_case_update AFTER UPDATE ON cases
WHEN EXISTS (SELECT 1 FROM webhook_subscriptions WHERE event IN ('case_modified', 'case_verified', 'case_deleted'))
BEGIN
  INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name, guid,
    old_key, old_label, old_data, old_notes, old_verified, old_deleted,
    new_key, new_label, new_data, new_notes, new_verified, new_deleted, modified_at)
  VALUES ('case', CAST(unixepoch('now', 'subsec') * 1000 AS INTEGER), NEW.dictionary_id,
    (SELECT name FROM dictionaries WHERE id = NEW.dictionary_id), NEW.guid,
    OLD.case_key, OLD.label, OLD.data, OLD.notes, OLD.verified, OLD.deleted,
    NEW.case_key, NEW.label, NEW.data, NEW.notes, NEW.verified, NEW.deleted, NEW.modified_at);
END;

CREATE TRIGGER webhook_capture_dictionary_insert AFTER INSERT ON dictionaries
WHEN EXISTS (SELECT 1 FROM webhook_subscriptions WHERE event = 'dictionary_uploaded')
BEGIN
  INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name, dict_label, dict_version, dict_created)
  VALUES ('dictionary', CAST(unixepoch('now', 'subsec') * 1000 AS INTEGER), NEW.id, NEW.name, NEW.label, NEW.version, 1);
END;

CREATE TRIGGER webhook_capture_dictionary_update AFTER UPDATE OF source, label, version ON dictionaries
WHEN EXISTS (SELECT 1 FROM webhook_subscriptions WHERE event = 'dictionary_uploaded')
BEGIN
  INSERT INTO webhook_outbox (topic, created_ms, dictionary_id, dictionary_name, dict_label, dict_version, dict_created)
  VALUES ('dictionary', CAST(unixepoch('now', 'subsec') * 1000 AS INTEGER), NEW.id, NEW.name, NEW.label, NEW.version, 0);
END;

-- One row per event and webhook: the exact body sent (signed as bytes) and its queue state.
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event           TEXT NOT NULL,
  message_id      TEXT NOT NULL UNIQUE,     -- the Standard Webhooks `webhook-id`, the same on every attempt
  body            TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('pending', 'success', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms INTEGER,                  -- NULL once success or failed
  lease_until_ms  INTEGER,                  -- a dispatcher holds the delivery until then
  lease_token     TEXT,
  created_at      TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id);

-- The delivery history of docs/webhooks.md#managing-webhooks: every attempt, in the order made.
CREATE TABLE webhook_attempts (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id     INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event           TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('success', 'failed')),
  response_status INTEGER,
  response_ms     INTEGER NOT NULL,
  error           TEXT,
  retry_count     INTEGER NOT NULL,
  attempted_at    TEXT NOT NULL
);
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id);
