-- The analysis queue's claim takes jobs in turns per user (analysis.repository.ts). It walks the
-- users with pending jobs through this index and reads only each one's first few jobs, so a claim
-- no longer ranks every waiting job: one user's Analyze Photos over 100,000 photos made each
-- claim scan them all, on the embedded database's only thread. Written by hand, as 0004.
CREATE INDEX "jobs_pending_user_idx" ON "jobs" USING btree ("user_id","id") WHERE status in ('queued', 'running');
