-- Durable counters for the Prometheus metrics of `GET /metrics` (docs/metrics.md). Breakout jobs
-- and webhook deliveries are finished by job processes, `sds scheduler-run` and CLI commands as
-- well as by the server, so counters in the server's memory would miss most of them; counting the
-- rows at scrape time would go backwards when old rows are pruned. So triggers add to these
-- counters in the same transaction that finishes a job or records a delivery attempt: a counter
-- moves exactly when its row commits, and deleting old rows never lowers it.
CREATE TABLE metric_counters (
  name  TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  value REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (name, label)
) WITHOUT ROWID;

-- A job reaches a final state once (jobs-repo.ts only moves pending or running rows).
CREATE TRIGGER metric_counters_job_end AFTER UPDATE OF status ON jobs
WHEN OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
BEGIN
  INSERT INTO metric_counters (name, label, value) VALUES ('breakout_jobs', NEW.status, 1)
    ON CONFLICT (name, label) DO UPDATE SET value = value + 1;
  INSERT INTO metric_counters (name, label, value)
    VALUES ('breakout_cases', '', coalesce(json_extract(NEW.result, '$.total_cases'), 0))
    ON CONFLICT (name, label) DO UPDATE SET value = value + excluded.value;
  INSERT INTO metric_counters (name, label, value)
    VALUES ('breakout_seconds', '',
            max(0, coalesce((julianday(NEW.finished_at) - julianday(coalesce(NEW.started_at, NEW.created_at))) * 86400.0, 0)))
    ON CONFLICT (name, label) DO UPDATE SET value = value + excluded.value;
END;

CREATE TRIGGER metric_counters_webhook_attempt AFTER INSERT ON webhook_attempts
BEGIN
  INSERT INTO metric_counters (name, label, value) VALUES ('webhook_attempts', NEW.status, 1)
    ON CONFLICT (name, label) DO UPDATE SET value = value + 1;
END;

-- What the store already holds counts from the start.
INSERT INTO metric_counters (name, label, value)
  SELECT 'breakout_jobs', status, count(*) FROM jobs WHERE status IN ('completed', 'failed', 'cancelled') GROUP BY status;
INSERT INTO metric_counters (name, label, value)
  SELECT 'breakout_cases', '', coalesce(sum(coalesce(json_extract(result, '$.total_cases'), 0)), 0)
  FROM jobs WHERE status IN ('completed', 'failed', 'cancelled');
INSERT INTO metric_counters (name, label, value)
  SELECT 'breakout_seconds', '',
         coalesce(sum(max(0, coalesce((julianday(finished_at) - julianday(coalesce(started_at, created_at))) * 86400.0, 0))), 0)
  FROM jobs WHERE status IN ('completed', 'failed', 'cancelled');
INSERT INTO metric_counters (name, label, value)
  SELECT 'webhook_attempts', status, count(*) FROM webhook_attempts GROUP BY status;
