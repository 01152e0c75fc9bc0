-- Breakout targets per dictionary, background jobs, and the incremental cursor per dictionary.
CREATE TABLE targets (
  dictionary_id INTEGER PRIMARY KEY REFERENCES dictionaries(id) ON DELETE CASCADE,
  type          TEXT NOT NULL CHECK (type IN ('postgresql', 'mysql', 'sqlserver', 'sqlite')),
  url           TEXT,
  host          TEXT,
  port          INTEGER,
  database      TEXT,
  username      TEXT,
  password_env  TEXT,
  file          TEXT,
  foreign_keys  INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

CREATE TABLE jobs (
  id               TEXT PRIMARY KEY,
  dictionaries     TEXT NOT NULL,
  mode             TEXT NOT NULL CHECK (mode IN ('full', 'incremental')),
  threads          INTEGER NOT NULL,
  overwrite        INTEGER NOT NULL DEFAULT 0,
  origin           TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
  pid              INTEGER,
  progress         TEXT,
  result           TEXT,
  error            TEXT,
  warnings         INTEGER NOT NULL DEFAULT 0,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  created_at       TEXT NOT NULL,
  started_at       TEXT,
  finished_at      TEXT,
  heartbeat_at     TEXT
);
CREATE INDEX jobs_by_status ON jobs (status, created_at);

-- Where the last breakout of a dictionary got to: the target it wrote, the table structure it
-- built, and the (revision, guid) of the last case applied, so a rerun continues from there.
CREATE TABLE breakout_state (
  dictionary_id  INTEGER PRIMARY KEY REFERENCES dictionaries(id) ON DELETE CASCADE,
  target         TEXT NOT NULL,
  structure_hash TEXT NOT NULL,
  tables         TEXT NOT NULL,
  last_revision  INTEGER NOT NULL DEFAULT 0,
  last_guid      TEXT NOT NULL DEFAULT '',
  last_job_id    TEXT,
  updated_at     TEXT NOT NULL
);
