-- Sync downloads filtered by universe (`x-csw-universe`, a case-key prefix) read the revision
-- index and test case_key. Without case_key in the index, counting such a range fetched every
-- case row (kilobytes of JSON each) of the range; with it the count reads the index alone. The
-- index keeps its name and leading columns, so breakout pages and active counts use it as before.
DROP INDEX cases_by_revision;
CREATE INDEX cases_by_revision ON cases (dictionary_id, revision, guid, deleted, case_key);
