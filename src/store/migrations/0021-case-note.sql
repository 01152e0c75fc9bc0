-- The case note of CSPro 8.1's case JSON (docs/sync.md#v3-case-json), a text about the whole case.
-- NULL when the case has none, which is every case stored before 8.1 clients and every case that
-- came from an 8.0 client, a .dat or a .csdb file.
ALTER TABLE cases ADD COLUMN case_note TEXT;
