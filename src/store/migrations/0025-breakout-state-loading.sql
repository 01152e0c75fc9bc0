-- The job whose load into a dictionary's breakout tables has begun and not finished: set when a
-- breakout starts loading cases, cleared when it has applied every case. Still set once that job
-- has ended (cancelled, failed, killed), it tells every report that the tables hold part of the
-- cases and where an incremental run resumes (docs/breakout.md#interrupted-breakouts).
ALTER TABLE breakout_state ADD COLUMN loading_job_id TEXT;
