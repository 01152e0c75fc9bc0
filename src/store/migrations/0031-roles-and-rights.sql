-- Roles and rights as CSWeb 8.1 has them (docs/supervision.md#roles-and-rights). `roles` holds
-- every role an account may have: the four built-in ones (their rights are fixed in the code,
-- src/core/auth/rights/catalogue.ts, so an upgrade cannot change what an account may do) and the
-- custom roles an operator adds. `role_rights` holds a custom role's default rights;
-- `role_dictionary_rights` the per-dictionary rows of any role but Administrator, which replace
-- the role's dictionary rights for that dictionary (the right `data.none` alone: nothing there).
CREATE TABLE roles (
  name       TEXT PRIMARY KEY,
  builtin    INTEGER NOT NULL DEFAULT 0 CHECK (builtin IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- The built-in roles carry a fixed time, the same in every store: sds made them, not this store.
INSERT INTO roles (name, builtin, created_at, updated_at) VALUES
  ('Standard User', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('Administrator', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('Developer', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('API', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z');

CREATE TABLE role_rights (
  role       TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
  right_name TEXT NOT NULL,
  PRIMARY KEY (role, right_name)
);

CREATE TABLE role_dictionary_rights (
  role       TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
  dictionary TEXT NOT NULL,
  right_name TEXT NOT NULL,
  PRIMARY KEY (role, dictionary, right_name)
);

-- users.role loses its CHECK of the three old names and names a row of `roles` instead. SQLite
-- cannot drop a CHECK, so the table is rebuilt, its columns in the same order. Dropping `users`
-- with foreign keys on deletes the rows that cascade from it (refresh tokens, CSWeb records):
-- they are kept aside and put back. Standard becomes Standard User (CSWeb's name); API and
-- Administrator keep theirs, and every account keeps exactly the rights it had.
CREATE TABLE users_0031 (
  id            INTEGER PRIMARY KEY,
  username      TEXT NOT NULL UNIQUE,
  role          TEXT NOT NULL REFERENCES roles(name),
  password_hash TEXT NOT NULL,
  disabled      INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  token_version INTEGER NOT NULL DEFAULT 0,
  last_login_at TEXT,
  uuid          TEXT NOT NULL DEFAULT ''
);
INSERT INTO users_0031 (id, username, role, password_hash, disabled, created_at, updated_at, token_version, last_login_at, uuid)
  SELECT id, username, CASE role WHEN 'Standard' THEN 'Standard User' ELSE role END, password_hash, disabled, created_at,
         updated_at, token_version, last_login_at, uuid
    FROM users;
CREATE TEMP TABLE refresh_tokens_0031 AS SELECT * FROM refresh_tokens;
CREATE TEMP TABLE csweb_users_0031 AS SELECT * FROM csweb_users;
DROP TABLE users;
ALTER TABLE users_0031 RENAME TO users;
CREATE UNIQUE INDEX users_by_uuid ON users (uuid);
INSERT INTO refresh_tokens SELECT * FROM temp.refresh_tokens_0031;
INSERT INTO csweb_users SELECT * FROM temp.csweb_users_0031;
DROP TABLE temp.refresh_tokens_0031;
DROP TABLE temp.csweb_users_0031;
