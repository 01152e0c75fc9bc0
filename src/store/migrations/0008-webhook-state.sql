-- State of the root webhook scripts (status webhook, incoming webhooks), kept in the store so
-- every serve process of a home shares it.

-- Rate limit: a sliding log of accepted request times (epoch milliseconds) per key, the key
-- being a fingerprint of the presented token and the client address. Old entries are pruned on
-- every check.
CREATE TABLE rate_limit_hits (
  key   TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX rate_limit_hits_by_key ON rate_limit_hits (key, at_ms);
CREATE INDEX rate_limit_hits_by_time ON rate_limit_hits (at_ms);

-- Incoming case events coalesced into at most one follow-up breakout per dictionary: set when an
-- event arrives while a job of the dictionary is pending or running, cleared when that job ends
-- (which starts one incremental job) or when an event finds no job and starts one itself.
CREATE TABLE breakout_follow_ups (
  dictionary_id INTEGER PRIMARY KEY REFERENCES dictionaries(id) ON DELETE CASCADE,
  requested_at  TEXT NOT NULL,
  events        INTEGER NOT NULL DEFAULT 1
);
