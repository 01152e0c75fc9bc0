-- Nothing to do on SQLite: its files stay in the home's folders. The PostgreSQL store's 0026 adds
-- the tables that hold its files' bytes (docs/decisions.md, "Files in the PostgreSQL store
-- (issue 28)"); the version numbers of the two sets stay in step.
SELECT 1;
