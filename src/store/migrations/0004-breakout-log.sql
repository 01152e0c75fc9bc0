-- The breakout log of the integration API (GET /api/logs/breakout): a few structured entries per
-- job and dictionary (started, progress about every 10 %, capped warnings, finished, job end).
-- The full, unabridged log of a job stays in its file logs/breakout/job-<id>.log.
CREATE TABLE breakout_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id      TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  dictionary  TEXT NOT NULL,
  level       TEXT NOT NULL CHECK (level IN ('info', 'warn', 'error')),
  message     TEXT NOT NULL,
  progress    INTEGER NOT NULL CHECK (progress BETWEEN 0 AND 100),
  created_at  TEXT NOT NULL
);
CREATE INDEX breakout_log_by_dictionary ON breakout_log (dictionary, id);
CREATE INDEX breakout_log_by_job ON breakout_log (job_id);
