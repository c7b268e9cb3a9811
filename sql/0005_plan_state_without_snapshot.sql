-- migration: contract
-- plan_state no longer keeps a second copy of the current plan. The current plan is the
-- user's latest plan_history row, (user_id, plan_date, history_rows_on_plan_date - 1),
-- which the job reads through plan_history's unique index. Writing the ~900-byte
-- snapshot twice (jsonb in plan_history, text in plan_state) cost a first run about a
-- sixth of its database time (README "Scale").

CREATE OR REPLACE VIEW plan_current AS
SELECT s.user_id, s.plan_date, s.next_check_at, s.updated_by_run, f.*
FROM plan_state s
JOIN plan_history h ON h.user_id = s.user_id AND h.plan_date = s.plan_date
                   AND h.seq = s.history_rows_on_plan_date - 1
CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f;

ALTER TABLE plan_state DROP COLUMN snapshot;

-- Outbox lines are found through their batch: `prune` keeps a run while a batch names
-- it, so the per-line run index only slowed every write.
DROP INDEX notification_outbox_run_idx;

-- The per-row foreign key check of plan_history.run_id cost a first run about 5% of its
-- database time. `prune` keeps every run a history row names (Pruning.swift; tested in
-- OpsPruneTests), which is what the key guarded.
ALTER TABLE plan_history DROP CONSTRAINT plan_history_run_id_fkey;
