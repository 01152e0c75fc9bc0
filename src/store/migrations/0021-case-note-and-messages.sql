-- The case note of CSPro 8.1's case JSON (docs/sync.md#v3-case-json), a text about the whole case.
-- NULL when the case has none, which is every case stored before 8.1 clients and every case that
-- came from an 8.0 client, a .dat or a .csdb file.
ALTER TABLE cases ADD COLUMN case_note TEXT;

-- Messages CSPro 8.1 logic sends with syncmessage (docs/sync.md#messages): kept as they came, with
-- the device and account that sent them. `value` is the JSON text of the value (NULL when unset).
CREATE TABLE sync_messages (
  id          INTEGER PRIMARY KEY,
  device_id   TEXT NOT NULL,
  username    TEXT NOT NULL,
  name        TEXT NOT NULL,
  value       TEXT,
  sent_at     TEXT NOT NULL DEFAULT '',
  received_at TEXT NOT NULL
);
