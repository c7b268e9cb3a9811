-- migration: contract
-- migration-lock: rebuilds plan_history's primary key and indexes: writes to plan_history wait meanwhile
-- Fewer btree indexes on the tables every run appends to.
--
-- Each btree index costs every written row a descent and a page insert, in the same
-- transaction as the plan. Copying the same 200,000 first-run rows into copies of the
-- tables measured: plan_history 5.3–5.6 s with its four btree indexes, 4.4–4.6 s with
-- the two changes below; notification_outbox 1.7–2.3 s with three, 1.1–1.5 s with its
-- key alone; plan_state 1.4–1.6 s with three, 0.8–0.9 s with its key alone (README
-- "Scale").

-- plan_history: its natural key (user_id, plan_date, seq) becomes the primary key. It was
-- a unique index beside a primary key on (id, plan_date) that nothing looks up; `id`
-- stays, an identity column without an index.
ALTER TABLE plan_history DROP CONSTRAINT plan_history_pkey;
ALTER TABLE plan_history ADD PRIMARY KEY (user_id, plan_date, seq);
DROP INDEX plan_history_user_date_seq_idx;

-- "Everything on a date" and "what did run N write" become BRIN indexes: rows are
-- appended in plan_date and run order (a night writes that night's dates, a run its own
-- run_id), so block-range summaries find them for a fraction of a btree's write cost.
DROP INDEX plan_history_plan_date_idx;
CREATE INDEX plan_history_plan_date_idx ON plan_history USING brin (plan_date);
DROP INDEX plan_history_run_idx;
CREATE INDEX plan_history_run_idx ON plan_history USING brin (run_id);

-- notification_outbox is transient: lines are emitted after commit and pruned later.
-- Lines are found by id (the primary key) or by batch (pending batches on every run
-- start, emitted ones by prune); batch ids only grow, so a BRIN index serves the latter.
-- The per-user index served only `forget`, which now reads the outbox once per call.
DROP INDEX notification_outbox_batch_idx;
CREATE INDEX notification_outbox_batch_idx ON notification_outbox USING brin (batch_id);
DROP INDEX notification_outbox_user_idx;

-- plan_state: one index serves both scheduled selections: users under the current rules
-- version whose next check has come are one range of (rules_version, next_check_at), users
-- under any other version the ranges before and after it (PlanStore/DueUsers.swift).
-- Every state write paid for two indexes before.
DROP INDEX plan_state_next_check_at_idx;
DROP INDEX plan_state_rules_version_idx;
CREATE INDEX plan_state_rules_version_next_check_at_idx ON plan_state (rules_version, next_check_at);
