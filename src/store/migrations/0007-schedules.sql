-- The scheduler (docs/scheduler.md): one cron schedule per dictionary, and the history of its runs.
-- Times are ISO 8601 UTC strings like every other stored timestamp.
CREATE TABLE schedules (
  id              INTEGER PRIMARY KEY,
  dictionary_id   INTEGER NOT NULL UNIQUE REFERENCES dictionaries(id) ON DELETE CASCADE,
  enabled         INTEGER NOT NULL DEFAULT 0,
  cron_expression TEXT NOT NULL DEFAULT '0 2 * * *' CHECK (length(cron_expression) <= 100),
  last_run        TEXT,
  next_run        TEXT,
  last_exit_code  INTEGER,
  last_log_file   TEXT CHECK (last_log_file IS NULL OR length(last_log_file) <= 255),
  modified_time   TEXT NOT NULL,
  created_time    TEXT NOT NULL
);
-- scheduler-run selects enabled schedules with next_run <= now every minute.
CREATE INDEX schedules_due ON schedules (enabled, next_run);

-- One row per run of a schedule (scheduled or run-now). ended_at and exit_code stay NULL while
-- the child runs; `outcome` says why a run did not start or how it ended. runner_pid is the
-- process that watches the child (scheduler-run or run-now), so a run whose watcher died is
-- found and closed as failed instead of showing `running` forever.
CREATE TABLE schedule_runs (
  id            INTEGER PRIMARY KEY,
  schedule_id   INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  trigger       TEXT NOT NULL CHECK (trigger IN ('scheduled', 'run-now')),
  started_at    TEXT NOT NULL,
  ended_at      TEXT,
  exit_code     INTEGER,
  outcome       TEXT NOT NULL CHECK (outcome IN ('running', 'succeeded', 'failed', 'interrupted', 'skipped')),
  log_file      TEXT,
  message       TEXT,
  runner_pid    INTEGER
);
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, id);
CREATE INDEX schedule_runs_running ON schedule_runs (outcome) WHERE outcome = 'running';
