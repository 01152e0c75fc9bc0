-- The login attempts under way on every node of the store (docs/http-api.md#login-throttling-and-accounts):
-- an attempt charged on its throttle counters while its credential is checked (`waiting` 0), or
-- waiting for such attempts to settle (`waiting` 1). In the store, not in one process's memory,
-- so that the throttle and its waiting limit count the attempts of every node alike
-- (docs/decisions.md, "Per-account limits across nodes (issue 29)"). A row whose node died is ignored
-- once `seen_at` is older than login_throttle.attempt_timeout_seconds, and then purged.
CREATE TABLE login_attempts (
  id       text COLLATE "C" PRIMARY KEY,
  node     text COLLATE "C" NOT NULL,
  address  text COLLATE "C" NOT NULL,
  username text COLLATE "C" NOT NULL,
  waiting  smallint NOT NULL CHECK (waiting IN (0, 1)),
  seen_at  bigint NOT NULL
);
CREATE INDEX login_attempts_by_address ON login_attempts (address, waiting, username);
