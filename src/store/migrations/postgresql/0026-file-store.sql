-- The bytes of the store's files (media and synced files, application packages, binary case
-- items) live in the database, so that every node of a PostgreSQL store sees them
-- (docs/decisions.md, "Files in the PostgreSQL store (issue 28)").

-- One row per content, found by its sha256 once written. A blob being uploaded has no sha256 yet:
-- its chunks are written first, each committed on its own, and nothing refers to it until the
-- transaction that puts it in place names it. `writer` (host:pid) and `touched_ms` let a sweep
-- tell an upload a crash cut from one still running. `orphaned_ms` is set when the last name
-- referring to it goes: the blob is kept a while for downloads still streaming it, then swept.
CREATE TABLE file_blobs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sha256      text COLLATE "C" UNIQUE,
  md5         text COLLATE "C",
  size        bigint NOT NULL DEFAULT 0,
  head        bytea NOT NULL DEFAULT '\x'::bytea,
  writer      text COLLATE "C" NOT NULL,
  touched_ms  bigint NOT NULL,
  orphaned_ms bigint
);

CREATE INDEX file_blobs_uploading ON file_blobs (touched_ms) WHERE sha256 IS NULL;
CREATE INDEX file_blobs_orphaned ON file_blobs (orphaned_ms) WHERE orphaned_ms IS NOT NULL;

-- The bytes, in chunks of 1 MiB (the last one shorter), read one at a time by a download.
CREATE TABLE file_blob_chunks (
  blob_id bigint NOT NULL REFERENCES file_blobs (id) ON DELETE CASCADE,
  seq     integer NOT NULL,
  bytes   bytea NOT NULL,
  PRIMARY KEY (blob_id, seq)
);

-- Photos, audio and zips are compressed already: stored out of line as they are, without a
-- compression attempt per chunk.
ALTER TABLE file_blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- Which blob each name of each area holds, and its modification time (a package's build time, a
-- synced file's lastModified).
CREATE TABLE file_entries (
  area     text COLLATE "C" NOT NULL CHECK (area IN ('media', 'apps', 'binary-items')),
  name     text COLLATE "C" NOT NULL,
  blob_id  bigint NOT NULL REFERENCES file_blobs (id),
  mtime_ms bigint NOT NULL,
  PRIMARY KEY (area, name)
);

CREATE INDEX file_entries_by_blob ON file_entries (blob_id);
