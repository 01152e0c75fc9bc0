-- Dictionaries, cases, the revision counter, users, media files and settings.
CREATE TABLE dictionaries (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  label         TEXT NOT NULL,
  version       TEXT NOT NULL,
  description   TEXT NOT NULL DEFAULT '',
  source        BLOB NOT NULL,
  source_format TEXT NOT NULL CHECK (source_format IN ('text', 'json')),
  model         TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

-- One row per committed write batch; cases carry the revision of the batch that last changed
-- them, so "changed since revision R" is an index range and a reader never sees half a batch.
CREATE TABLE revisions (
  revision      INTEGER PRIMARY KEY AUTOINCREMENT,
  dictionary_id INTEGER NOT NULL,
  origin        TEXT NOT NULL,
  created_at    TEXT NOT NULL
);

CREATE TABLE cases (
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
) WITHOUT ROWID;
CREATE INDEX cases_by_revision ON cases (dictionary_id, revision);
CREATE INDEX cases_by_key ON cases (dictionary_id, case_key, guid);

CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  username      TEXT NOT NULL UNIQUE,
  role          TEXT NOT NULL CHECK (role IN ('Administrator', 'API', 'Standard')),
  password_hash TEXT NOT NULL,
  disabled      INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

CREATE TABLE files (
  name          TEXT PRIMARY KEY,
  size          INTEGER NOT NULL,
  sha256        TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

CREATE TABLE settings (
  name          TEXT PRIMARY KEY,
  value         TEXT NOT NULL
);
