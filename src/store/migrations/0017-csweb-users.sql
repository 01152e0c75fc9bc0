-- Accounts imported from CSWeb (docs/migrating-from-csweb.md#users-and-roles). One row per sds
-- account that an import created, holding what CSWeb said of it at the last import: the bcrypt
-- hash CSWeb held (so a later import can tell a password changed in CSWeb from sds's own re-hash
-- at the first login), the CSWeb role it was mapped from, and the contact fields sds's accounts
-- have no place for. An account created in sds by hand has no row, and an import leaves it alone.
CREATE TABLE csweb_users (
  user_id        INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  csweb_username TEXT NOT NULL,
  password_hash  TEXT NOT NULL,
  csweb_role     TEXT NOT NULL,
  first_name     TEXT,
  last_name      TEXT,
  email          TEXT,
  phone          TEXT,
  imported_at    TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
