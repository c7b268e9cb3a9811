-- migration: expand
-- Claims on user partitions that hold behind a connection pooler (README "How a run
-- works: claims").
--
-- Runs used to own their user partitions through session advisory locks. Behind PgBouncer
-- in transaction mode a session lock stays with a pooled server connection, not with the
-- run: it outlived the run that took it, and later runs silently skipped every user. A
-- claim is now a row: the run that holds partition p is plan_partition_claims.run_id, until
-- expires_at. A run renews its claims as it makes progress; a run that dies stops
-- renewing, and its partitions can be taken over once its claim has expired (at once when
-- the dead process is seen to be gone on the same machine).
--
-- Every transaction that writes plans first locks its partitions' claim rows FOR KEY SHARE
-- and checks that its run still holds them (the fence); a run taking a partition over
-- locks the row FOR UPDATE, which waits for those transactions. So a run whose claim
-- lapsed can never write after another run took its partitions, and two runs never write
-- one user's plan twice. Renewals are plain UPDATEs, which do not conflict with KEY SHARE.

CREATE TABLE plan_partition_claims (
    partition   integer PRIMARY KEY CHECK (partition >= 0 AND partition < 64),
    run_id      bigint,          -- the holder (plan_runs.run_id); NULL: free
    claimed_at  timestamptz,     -- when the holder took it
    expires_at  timestamptz      -- the holder's claim lapses then unless renewed
);
-- One row per partition of UserPartitions (user_id mod 64).
INSERT INTO plan_partition_claims (partition) SELECT generate_series(0, 63);
GRANT SELECT, UPDATE ON plan_partition_claims TO plan_regen_job;

-- Who a run is, so another run on the same machine can tell that it died (README).
ALTER TABLE plan_runs ADD COLUMN host text;
ALTER TABLE plan_runs ADD COLUMN pid integer;
ALTER TABLE plan_runs ADD COLUMN process_key text;
-- Partitions this run wanted but found held by other runs (their users were left to them).
ALTER TABLE plan_runs ADD COLUMN partitions_held_by_others integer NOT NULL DEFAULT 0;
-- Runs still marked running: a run finds those whose process died on its machine (killed
-- before it could record its end) and marks them abandoned.
CREATE INDEX plan_runs_running_idx ON plan_runs (run_id) WHERE status = 'running';
-- status: running, succeeded, held_by_others, held_too_long, stopped, failed, abandoned
-- (README "Exit codes and run statuses").
COMMENT ON COLUMN plan_runs.status IS
    'running, succeeded, held_by_others, held_too_long, stopped, failed, abandoned (README "Exit codes and run statuses")';
