-- Roles and rights as CSWeb 8.1 has them (docs/supervision.md#roles-and-rights). `roles` holds
-- every role an account may have: the four built-in ones (their rights are fixed in the code,
-- src/core/auth/rights/catalogue.ts, so an upgrade cannot change what an account may do) and the
-- custom roles an operator adds. `role_rights` holds a custom role's default rights;
-- `role_dictionary_rights` the per-dictionary rows of any role but Administrator, which replace
-- the role's dictionary rights for that dictionary (the right `data.none` alone: nothing there).
CREATE TABLE roles (
  name       text COLLATE "C" PRIMARY KEY,
  builtin    smallint NOT NULL DEFAULT 0 CHECK (builtin IN (0, 1)),
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
-- The built-in roles carry a fixed time, the same in every store: sds made them, not this store.
INSERT INTO roles (name, builtin, created_at, updated_at) VALUES
  ('Standard User', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('Administrator', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('Developer', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
  ('API', 1, '2026-11-28T00:00:00.000Z', '2026-11-28T00:00:00.000Z');

CREATE TABLE role_rights (
  role       text COLLATE "C" NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
  right_name text COLLATE "C" NOT NULL,
  PRIMARY KEY (role, right_name)
);

CREATE TABLE role_dictionary_rights (
  role       text COLLATE "C" NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
  dictionary text COLLATE "C" NOT NULL,
  right_name text COLLATE "C" NOT NULL,
  PRIMARY KEY (role, dictionary, right_name)
);

-- users.role loses its CHECK of the three old names and names a row of `roles` instead.
-- Standard becomes Standard User (CSWeb's name); API and Administrator keep theirs, and every
-- account keeps exactly the rights it had.
ALTER TABLE users DROP CONSTRAINT users_role_check;
UPDATE users SET role = 'Standard User' WHERE role = 'Standard';
ALTER TABLE users ADD CONSTRAINT users_role_fkey FOREIGN KEY (role) REFERENCES roles(name);
