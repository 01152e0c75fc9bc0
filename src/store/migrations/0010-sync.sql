-- The data-collection client's sync protocol (docs/sync.md). Devices are the tablets that sync;
-- a request without x-csw-device is recorded as the device 'unknown'. The history keeps one row
-- per upload ('put', the revision it created) and per completed download ('get', the revision
-- the device now holds), like CSWeb's cspro_sync_history, so an operator can see who synced what.
CREATE TABLE sync_devices (
  device_id     TEXT PRIMARY KEY,
  last_user     TEXT NOT NULL DEFAULT '',
  first_seen    TEXT NOT NULL,
  last_seen     TEXT NOT NULL
);

CREATE TABLE sync_history (
  id            INTEGER PRIMARY KEY,
  dictionary_id INTEGER NOT NULL REFERENCES dictionaries(id) ON DELETE CASCADE,
  device_id     TEXT NOT NULL REFERENCES sync_devices(device_id),
  username      TEXT NOT NULL DEFAULT '',
  direction     TEXT NOT NULL CHECK (direction IN ('put', 'get')),
  revision      INTEGER NOT NULL,
  universe      TEXT NOT NULL DEFAULT '',
  cases         INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL
);
CREATE INDEX sync_history_by_dictionary ON sync_history (dictionary_id, id);
CREATE INDEX sync_history_by_device ON sync_history (device_id, dictionary_id, id);
