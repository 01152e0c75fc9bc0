-- What is known of an application package of the apps area beyond its zip (docs/sync.md#apps):
-- the metadata CSWeb kept in its cspro_apps table, brought by `sds csweb import --files`
-- (docs/migrating-from-csweb.md#files-and-app-packages). A zip put in the apps area by hand has no
-- row. zip_size and zip_md5 describe the zip the metadata belongs to: a zip replaced by hand
-- afterwards no longer matches, and is served as a hand-made package until the next import.
CREATE TABLE app_packages (
  name        TEXT PRIMARY KEY,
  description TEXT,
  version     TEXT,
  files       TEXT,
  signature   TEXT,
  build_time  TEXT NOT NULL,
  zip_size    INTEGER NOT NULL,
  zip_md5     TEXT NOT NULL,
  source      TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
