-- Accounts get an id that is never reused (docs/http-api.md#what-ends-a-token). Access tokens named
-- the account by its user name, so once an account was removed and another made with the same
-- name, the old tokens were the new account's. Tokens now name this UUID, which a new account of
-- the same name does not get. The accounts already there get one here, random (version 4); new
-- ones get theirs from the users repository.
ALTER TABLE users ADD COLUMN uuid TEXT NOT NULL DEFAULT '';
UPDATE users SET uuid = lower(
  hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))
);
CREATE UNIQUE INDEX users_by_uuid ON users (uuid);

-- A refresh token keeps the token version of its account at login: disabling the account or
-- changing its role bumps the version, and a refresh token of an older version is refused. The
-- tokens already there take their account's version now, so they keep working after the upgrade
-- (-1, never a version, for a row whose account is gone: deletion cascades, so there is none).
ALTER TABLE refresh_tokens ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;
UPDATE refresh_tokens SET token_version = COALESCE((SELECT u.token_version FROM users u WHERE u.id = refresh_tokens.user_id), -1);
