-- Who an account belongs to (docs/supervision.md#accounts): first and last name, email and phone,
-- as CSWeb keeps them in cspro_users and its CSV import sets them. NULL when unknown. An account
-- imported from CSWeb had them only in csweb_users (migration 0017); they are copied over here, so
-- the office sees them on the account itself.
ALTER TABLE users ADD COLUMN first_name text COLLATE "C";
ALTER TABLE users ADD COLUMN last_name text COLLATE "C";
ALTER TABLE users ADD COLUMN email text COLLATE "C";
ALTER TABLE users ADD COLUMN phone text COLLATE "C";
UPDATE users SET
  first_name = (SELECT c.first_name FROM csweb_users c WHERE c.user_id = users.id),
  last_name = (SELECT c.last_name FROM csweb_users c WHERE c.user_id = users.id),
  email = (SELECT c.email FROM csweb_users c WHERE c.user_id = users.id),
  phone = (SELECT c.phone FROM csweb_users c WHERE c.user_id = users.id)
WHERE id IN (SELECT user_id FROM csweb_users);
