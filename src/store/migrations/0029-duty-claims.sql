-- Duties shared by every node and worker of a store (docs/decisions.md, "Duties across nodes
-- (issue 29)"): one row per (duty, slot) says which node took a due run of a schedule
-- (duty `schedule:<id>`, slot its due time) or one period of a periodic duty (duty `log-prune`,
-- slot the period's start). The primary key is the claim: of two nodes inserting the same row,
-- one inserts it and the other finds it there. Older slots of a duty are deleted as a newer one
-- is claimed, so the table holds about one row per duty.
CREATE TABLE duty_claims (
  duty        TEXT NOT NULL,
  slot        TEXT NOT NULL,            -- ISO 8601 UTC, the form Date.toISOString() writes
  node        TEXT NOT NULL,            -- src/shared/node-id.ts: host:pid:start
  claimed_at  TEXT NOT NULL,
  PRIMARY KEY (duty, slot)
);

-- The node holding a delivery's lease (beside lease_until_ms and lease_token), so an operator
-- sees which node is sending it; the token stays the claim's proof.
ALTER TABLE webhook_deliveries ADD COLUMN lease_node TEXT;

-- The host of the process watching a schedule run: runner_pid means something on that host
-- only, so a node reaps by process id only the runs of its own host (docs/scheduler.md).
ALTER TABLE schedule_runs ADD COLUMN runner_host TEXT;
