-- The audit trail (docs/supervision.md#audit-trail): one row per change of accounts,
-- dictionaries, operators' case deletions, targets, schedules, webhooks and settings, and per
-- login. Rows are hash-chained: `hash` is the SHA-256 of the row's canonical form, which holds
-- `prev_hash`, the hash of the row before (docs/supervision.md#the-canonical-form). `seq` counts
-- from 1 without gaps, so a deleted or inserted row breaks the count as well as the chain.
CREATE TABLE audit_log (
  seq       bigint PRIMARY KEY,
  at        text COLLATE "C" NOT NULL,
  actor     text COLLATE "C" NOT NULL,
  origin    text COLLATE "C" NOT NULL,
  channel   text COLLATE "C" NOT NULL,
  action    text COLLATE "C" NOT NULL,
  target    text COLLATE "C" NOT NULL,
  outcome   text COLLATE "C" NOT NULL,
  details   text COLLATE "C" NOT NULL,
  prev_hash text COLLATE "C" NOT NULL,
  hash      text COLLATE "C" NOT NULL
);
CREATE INDEX audit_log_by_at ON audit_log (at);
-- The chain's one head row: the last record's seq and hash (so that a deleted last record is
-- found), the anchor left by a prune (the seq and hash of the last record pruned: the first kept
-- record's prev_hash must equal it), and how far a backup has taken the trail (retention never
-- prunes past it). Writers lock this row to append, so the chain is extended one at a time.
CREATE TABLE audit_chain (
  id            integer PRIMARY KEY CHECK (id = 1),
  head_seq      bigint NOT NULL,
  head_hash     text COLLATE "C" NOT NULL,
  anchor_seq    bigint NOT NULL,
  anchor_hash   text COLLATE "C" NOT NULL,
  backed_up_seq bigint NOT NULL
);
INSERT INTO audit_chain (id, head_seq, head_hash, anchor_seq, anchor_hash, backed_up_seq)
VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000', 0,
        '0000000000000000000000000000000000000000000000000000000000000000', 0);
