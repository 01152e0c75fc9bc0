-- Breakout jobs held by a lease (docs/breakout.md#leases; docs/decisions.md, "Breakout jobs
-- held by a lease (issue 29)"): the node that runs a job and until when its claim holds, how
-- often the job was taken over from a node whose lease was over, and the dictionaries it has
-- finished, so that the node taking it over resumes at the dictionary and cursor where it stopped.
ALTER TABLE jobs ADD COLUMN lease_node TEXT;
ALTER TABLE jobs ADD COLUMN lease_expires_at TEXT;
ALTER TABLE jobs ADD COLUMN takeovers INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN dictionaries_done TEXT NOT NULL DEFAULT '[]';
CREATE INDEX jobs_by_lease ON jobs (status, lease_expires_at);
