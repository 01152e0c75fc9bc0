-- Who last wrote each media file, for the overwrite rule of docs/sync.md ("Who may replace a
-- file"): `office` is 1 when the writer held files.write (an API or Administrator account, or
-- the operator's `sds files put`), 0 for a field account syncing. Rows from before this
-- migration cannot say who wrote them, so they count as office files: a field account may not
-- replace them.
ALTER TABLE files ADD COLUMN written_by TEXT;
ALTER TABLE files ADD COLUMN office INTEGER NOT NULL DEFAULT 1 CHECK (office IN (0, 1));
