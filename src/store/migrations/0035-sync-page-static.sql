-- Nothing to change on SQLite: migration 0035 rewrites the PostgreSQL store's download-page
-- function (src/store/migrations/postgresql/0035-sync-page-static.sql), and both stores keep the
-- same schema version (docs/production.md, "Moving a home").
SELECT 1;
