-- The revision a case had before its latest change (NULL for a case never changed since it was
-- stored, or last changed before this migration). A download's total then moves from one page to
-- the next by the cases changed in between instead of being counted again over the rest of the
-- range (docs/decisions.md, "A download's total across new uploads"). Adding a NULL column
-- rewrites nothing, and the index of the changed cases starts empty (building it reads the table
-- once): it holds only the rows of changes, which that move reads without visiting the table.
ALTER TABLE cases ADD COLUMN prev_revision INTEGER;
CREATE INDEX cases_changed ON cases (dictionary_id, revision, prev_revision, guid) WHERE prev_revision IS NOT NULL;
