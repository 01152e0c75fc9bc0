-- The position of a case in its dictionary (docs/sync.md#the-81-data-source): 1, 2, 3, … in the
-- order cases first reached the store, given once when the case is inserted and never changed by
-- a later write, so the CSPro 8.1 data source can use it as the case's id. A hard delete (a purge)
-- removes the dictionary with its cases; positions are never given twice within a dictionary's life.
ALTER TABLE cases ADD COLUMN position INTEGER NOT NULL DEFAULT 0;

-- Cases stored before this migration are numbered in the order they were created, rows written in
-- the same batch (one timestamp) in row order: the same numbers on every copy of the store. The
-- update capture trigger is set aside meanwhile, so the backfill sends no webhook events; it is
-- created again exactly as 0009 wrote it.
DROP TRIGGER webhook_capture_case_update;

UPDATE cases SET position = numbered.position
  FROM (SELECT rowid AS r, row_number() OVER (PARTITION BY dictionary_id ORDER BY created_at, rowid) AS position FROM cases) AS numbered
  WHERE cases.rowid = numbered.r;

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

-- Unique: a position names one case. Also the index of position order and of max(position) + 1.
CREATE UNIQUE INDEX cases_by_position ON cases (dictionary_id, position);
