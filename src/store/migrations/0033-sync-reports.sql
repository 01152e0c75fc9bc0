-- Supervision reports over the sync history and the cases (docs/supervision.md#sync-history-and-reports).
-- Area names: the code/label CSV of `sds dict area-names`, one row per area; `codes` is the JSON
-- array of the area's codes, level by level, normalised (trimmed, leading zeros of a number
-- dropped) so that a key's id text finds its name whatever its zero fill. Deleted with the
-- dictionary.
CREATE TABLE area_names (
  dictionary_id INTEGER NOT NULL REFERENCES dictionaries(id) ON DELETE CASCADE,
  codes         TEXT NOT NULL,
  label         TEXT NOT NULL,
  PRIMARY KEY (dictionary_id, codes)
);
-- The time filters of `sync history` and the per-day report read a range of times; the
-- devices-seen gauge counts the devices of each dictionary since a time from the index alone.
CREATE INDEX sync_history_by_time ON sync_history (created_at, dictionary_id, device_id);
CREATE INDEX sync_history_by_dictionary_time ON sync_history (dictionary_id, created_at);
-- The CSPro version a device last synced with (its User-Agent), when known.
ALTER TABLE sync_devices ADD COLUMN app_version TEXT;
