-- The late-row sweep (plan-rules.md section 2, "Late rows"; docs/architecture.md).
--
-- A row whose updated_at is already older than the change watermark when it becomes
-- visible (a bulk import keeping old instants, an offline edit synced hours later, a long
-- transaction) is never in the watermark's index range. Each scheduled run therefore also
-- compares one slice of the user ids: user_settings.updated_at against the updated_at the
-- job saw, so that every id is compared once per sweep period.

-- Where each partition's sweep stands: the first id its next slice reads, the instant of
-- the run that swept up to it, when the last whole pass over the ids ended, and the period
-- that run used (read by status, explain and the metrics).
ALTER TABLE plan_watermarks
    ADD COLUMN sweep_next_user_id   bigint,
    ADD COLUMN swept_at             timestamptz,
    ADD COLUMN sweep_completed_at   timestamptz,
    ADD COLUMN sweep_period_seconds integer;
COMMENT ON COLUMN plan_watermarks.sweep_next_user_id IS
    'late-row sweep: the first user id the next slice compares';
COMMENT ON COLUMN plan_watermarks.swept_at IS
    'late-row sweep: the instant (as_of) of the run that swept up to sweep_next_user_id';
COMMENT ON COLUMN plan_watermarks.sweep_completed_at IS
    'late-row sweep: when the last whole pass over the user ids ended (as_of of that run)';

-- Users a run planned whose row the watermark had missed and the sweep found.
ALTER TABLE plan_runs ADD COLUMN found_late integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN plan_runs.found_late IS
    'users whose unseen row was older than the change watermark: found by the late-row sweep (due now or waiting for their midnight)';

-- The sweep reads the updated_at the job saw (and the version waiting for its midnight)
-- from the primary key's index alone: a merge join of two index-only scans.
ALTER TABLE plan_state
    DROP CONSTRAINT plan_state_pkey,
    ADD CONSTRAINT plan_state_pkey PRIMARY KEY (user_id) INCLUDE (seen_updated_at, scheduled_updated_at);
