-- The finished logs of breakout jobs and schedule runs (`job-<id>.log`, `<dictionary>_<time>.log`)
-- in the file store, area `logs`, so that every node of the store reads them (docs/logs.md;
-- docs/decisions.md, "Files in the PostgreSQL store (issue 28)").
ALTER TABLE file_entries DROP CONSTRAINT file_entries_area_check;
ALTER TABLE file_entries ADD CONSTRAINT file_entries_area_check CHECK (area IN ('media', 'apps', 'binary-items', 'logs'));
