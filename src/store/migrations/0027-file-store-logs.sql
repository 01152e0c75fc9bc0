-- Nothing to do on SQLite: the finished logs of jobs and schedule runs stay in the home's
-- logs/breakout/. The PostgreSQL store's 0027 lets its file store hold them (area `logs`,
-- docs/logs.md); the version numbers of the two sets stay in step.
SELECT 1;
