-- Cases move from a WITHOUT ROWID table to an ordinary rowid table. A case row is a few KB of
-- JSON; keyed by a random guid, every insert landed in a random page of a tree of big rows
-- (SQLite advises WITHOUT ROWID only for rows well under a twentieth of a page), so imports
-- slowed as the store grew. Rows now append in rowid order and only the small guid index takes
-- random inserts. The revision index carries guid so breakout pages read in index order, and
-- deleted so counting active cases never reads the case rows.
CREATE TABLE cases_by_rowid (
  dictionary_id INTEGER NOT NULL REFERENCES dictionaries(id),
  guid          TEXT NOT NULL,
  case_key      TEXT NOT NULL,
  label         TEXT NOT NULL DEFAULT '',
  data          TEXT NOT NULL,
  verified      INTEGER NOT NULL DEFAULT 0,
  deleted       INTEGER NOT NULL DEFAULT 0,
  revision      INTEGER NOT NULL,
  clock         TEXT NOT NULL DEFAULT '[]',
  partial_save  TEXT,
  notes         TEXT NOT NULL DEFAULT '[]',
  created_at    TEXT NOT NULL,
  modified_at   TEXT NOT NULL,
  PRIMARY KEY (dictionary_id, guid)
);
INSERT INTO cases_by_rowid
  SELECT dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, created_at, modified_at
  FROM cases ORDER BY dictionary_id, revision, guid;
DROP TABLE cases;
ALTER TABLE cases_by_rowid RENAME TO cases;
CREATE INDEX cases_by_revision ON cases (dictionary_id, revision, guid, deleted);
CREATE INDEX cases_by_key ON cases (dictionary_id, case_key, guid);
