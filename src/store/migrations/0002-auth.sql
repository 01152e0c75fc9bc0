-- Refresh tokens of the OAuth token endpoint. Only the SHA-256 of a token is kept, so a copy of
-- the store does not hand out sessions. Every refresh replaces the row's token with a new one of
-- the same family; a replaced token presented again means it leaked, and the family is revoked.
-- Times are epoch milliseconds: the server compares them with an injectable clock.
CREATE TABLE refresh_tokens (
  id               INTEGER PRIMARY KEY,
  token_hash       TEXT NOT NULL UNIQUE,
  family_id        TEXT NOT NULL,
  user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  username         TEXT NOT NULL,
  client_id        TEXT,
  credential_stamp TEXT NOT NULL,
  issued_at        INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  replaced_at      INTEGER,
  revoked_at       INTEGER
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
