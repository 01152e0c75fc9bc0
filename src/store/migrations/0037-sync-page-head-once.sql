-- Nothing to change on SQLite: migration 0037 rewrites the PostgreSQL store's named download-page
-- function (src/store/migrations/postgresql/0037-sync-page-head-once.sql), and both stores keep
-- the same schema version (docs/production.md, "Moving a home").
SELECT 1;
