-- Rules versions roll out at each user's own midnight, never backwards (plan-rules.md
-- section 2.1; docs/releasing-rules.md).

-- When each rules version started to roll out: recorded once, by the first scheduled run
-- of that version that found a plan of an older one (the first to commit wins), and used
-- by every later run, process and shard. A rollback forgets the newer versions' rows.
CREATE TABLE plan_rules_rollouts (
    rules_version  text PRIMARY KEY,
    started_at     timestamptz NOT NULL,   -- the recording run's instant (--as-of or now)
    recorded_by_run bigint NOT NULL,
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE plan_rules_rollouts IS
    'rollout start of each rules version: users with older plans get the new version at their first local midnight at or after it';
GRANT SELECT, INSERT, DELETE ON plan_rules_rollouts TO plan_regen_job;

-- What a run left to a newer rules version, and what it was asked to do with versions.
ALTER TABLE plan_runs
    ADD COLUMN left_to_newer_rules integer NOT NULL DEFAULT 0,
    ADD COLUMN newest_rules_version_seen text,
    ADD COLUMN rules_action text;
COMMENT ON COLUMN plan_runs.left_to_newer_rules IS
    'due users whose current plan a newer rules version made: left to it (never replaced by an older binary)';
COMMENT ON COLUMN plan_runs.newest_rules_version_seen IS 'the newest rules version among the users'' states at the run';
COMMENT ON COLUMN plan_runs.rules_action IS
    'at_once (older plans made again at once), rollback (newer plans made again at once), both, or NULL';
