-- migration: expand
-- plan-regen's own tables. See README "Data model" for how analysts use them.

-- One row per job run (also a dry run): what it was asked, what it did.
CREATE TABLE plan_runs (
    run_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at         timestamptz,
    as_of               timestamptz NOT NULL,           -- the run's instant (--as-of or now)
    status              text NOT NULL DEFAULT 'running', -- running, succeeded, failed
    dry_run             boolean NOT NULL DEFAULT false,
    requested_users     bigint[],                       -- --user ids, NULL for a scheduled run
    shard               text,                           -- e.g. '0/2', NULL for all users
    binary_version      text NOT NULL,
    rules_version       text NOT NULL,
    tzdata_version      text NOT NULL,
    due                 integer NOT NULL DEFAULT 0,
    created             integer NOT NULL DEFAULT 0,
    changed             integer NOT NULL DEFAULT 0,
    unchanged           integer NOT NULL DEFAULT 0,
    skipped_incomplete  integer NOT NULL DEFAULT 0,
    rejected            integer NOT NULL DEFAULT 0,
    notifications       integer NOT NULL DEFAULT 0,
    unknown_users       integer NOT NULL DEFAULT 0,
    duration_ms         bigint,
    error               text
);

-- What the job remembers per user between runs: the current plan and the schedule.
CREATE TABLE plan_state (
    user_id                       bigint PRIMARY KEY,
    -- the current plan (latest history row), as compact JSON text: the job reads and
    -- rewrites it every time the user is due, so it is stored without jsonb's parse cost.
    -- Analysts use plan_history (jsonb) or the plan_current view.
    snapshot                      text,
    plan_date                     date,        -- the current plan's plan date
    -- the rules version of the latest evaluation: a new rules version makes every user due
    rules_version                 text,
    history_rows_on_plan_date     integer NOT NULL DEFAULT 0,
    last_evaluated_date           date,        -- E in plan-rules.md section 2
    seen_updated_at               timestamptz, -- latest user_settings.updated_at the job saw
    judged_updated_at             timestamptz, -- row version last recorded as rejected/incomplete
    judged_rules_version          text,
    -- the earliest instant at which the plan can change on its own (midnight of a pending
    -- change, next phase switch, next birthday): a run selects next_check_at <= as_of.
    next_check_at                 timestamptz,
    updated_by_run                bigint
);
CREATE INDEX plan_state_next_check_at_idx ON plan_state (next_check_at);
CREATE INDEX plan_state_rules_version_idx ON plan_state (rules_version);

-- Every written plan: snapshot, the previous one and the diff between them.
CREATE TABLE plan_history (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        bigint NOT NULL,
    plan_date      date NOT NULL,
    -- n: how many earlier rows this user has for the same plan date (0 for a scheduled
    -- plan, 1.. for same-day manual reruns); makes a duplicate row impossible.
    seq            integer NOT NULL DEFAULT 0,
    generated_at   timestamptz NOT NULL,
    run_id         bigint NOT NULL REFERENCES plan_runs (run_id),
    reasons        text[] NOT NULL,
    snapshot       jsonb NOT NULL,
    previous       jsonb,
    diff           jsonb NOT NULL,
    rules_version  text NOT NULL
);
-- "one user's history" (newest first) and the duplicate guard in one index
CREATE UNIQUE INDEX plan_history_user_date_seq_idx ON plan_history (user_id, plan_date, seq);
-- "everything on a date"
CREATE INDEX plan_history_plan_date_idx ON plan_history (plan_date);

-- Rejected settings rows: one row per failing field (plan-rules.md section 1.2).
CREATE TABLE plan_rejections (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id           bigint NOT NULL,
    run_id            bigint NOT NULL REFERENCES plan_runs (run_id),
    field             text NOT NULL,
    message           text NOT NULL,
    row_updated_at    timestamptz,       -- the user_settings.updated_at of the rejected row
    rules_version     text NOT NULL,
    recorded_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX plan_rejections_user_idx ON plan_rejections (user_id);
CREATE INDEX plan_rejections_run_idx ON plan_rejections (run_id);

-- Notification outbox: written in the same transaction as the plan, emitted as JSON
-- lines after commit, marked emitted after the line is flushed. At least once.
CREATE TABLE notification_outbox (
    notification_id  text PRIMARY KEY,   -- "<user_id>:<plan_date>:<type>:<n>"
    user_id          bigint NOT NULL,
    run_id           bigint NOT NULL REFERENCES plan_runs (run_id),
    created_at       timestamptz NOT NULL,
    payload          text NOT NULL,      -- the JSON line, exactly as emitted
    emitted_at       timestamptz
);
CREATE INDEX notification_outbox_pending_idx ON notification_outbox (created_at)
    WHERE emitted_at IS NULL;
CREATE INDEX notification_outbox_user_idx ON notification_outbox (user_id);

-- Where the next run starts looking for changed user_settings rows, per user partition
-- (user_id mod 64; a --shard run owns some partitions). A run reads rows with
-- updated_at >= watermark - lookback, so a write committed late is still seen.
CREATE TABLE plan_watermarks (
    partition           integer PRIMARY KEY,
    settings_watermark  timestamptz NOT NULL
);
