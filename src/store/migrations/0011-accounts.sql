-- Accounts: a token version that disabling bumps (access tokens carry it, so the ones issued
-- before are refused even after the account is enabled again) and the time of the last login.
ALTER TABLE users ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN last_login_at TEXT;

-- Failed-login counters of the token endpoint, shared by every `sds serve` process of a home and
-- kept across restarts. One row per (username, client address) (scope 'user') and per client
-- address across all usernames (scope 'address', username ''). Times are epoch milliseconds of
-- the server's injectable clock. A row whose window and block have both lapsed is stale.
CREATE TABLE login_throttle (
  scope           TEXT NOT NULL CHECK (scope IN ('user', 'address')),
  username        TEXT NOT NULL,
  address         TEXT NOT NULL,
  failures        INTEGER NOT NULL,
  window_start    INTEGER NOT NULL,
  blocked_until   INTEGER NOT NULL DEFAULT 0,
  strikes         INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER NOT NULL,
  PRIMARY KEY (scope, username, address)
) WITHOUT ROWID;
CREATE INDEX login_throttle_by_user ON login_throttle (username) WHERE scope = 'user';

CREATE INDEX refresh_tokens_by_user ON refresh_tokens (user_id);
