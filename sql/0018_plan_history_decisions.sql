-- migration: expand
-- migration-lock: updates the plan_history rows that carry a notification or a phase switch (most of them): forget waits meanwhile
-- What the rules decided about each plan, stored with it by the run that writes it (section
-- 7), so that `plan-regen report` counts decisions instead of deciding again from the JSON.
ALTER TABLE plan_history ADD COLUMN phase_switch text, ADD COLUMN notification_type text;
COMMENT ON COLUMN plan_history.phase_switch IS
    'the MATADOR phase this plan switched to (deficit or maintenance), NULL when it did not switch';
COMMENT ON COLUMN plan_history.notification_type IS
    'the notification this plan was given (plan_created, phase_switch, targets_updated), NULL when none';

-- Rows written before: decided from the row by the rules they were written under (section 7
-- before 7.1 left out water changes of no fluid ounce): a first plan is plan_created, a
-- diff of phase.phase between deficit and maintenance a phase switch, else a change of
-- calories, protein or water targets_updated.
UPDATE plan_history SET
    phase_switch = CASE WHEN diff @> '[{"path": "phase.phase", "after": "maintenance", "before": "deficit"}]' THEN 'maintenance'
                        WHEN diff @> '[{"path": "phase.phase", "after": "deficit", "before": "maintenance"}]' THEN 'deficit' END,
    notification_type = CASE WHEN previous IS NULL THEN 'plan_created'
        WHEN diff @> '[{"path": "phase.phase", "after": "maintenance", "before": "deficit"}]'
          OR diff @> '[{"path": "phase.phase", "after": "deficit", "before": "maintenance"}]' THEN 'phase_switch'
        WHEN diff @> '[{"path": "targets.calories"}]' OR diff @> '[{"path": "targets.protein_g"}]'
          OR diff @> '[{"path": "targets.water_ml"}]' THEN 'targets_updated' END
WHERE previous IS NULL OR diff @> '[{"path": "phase.phase"}]' OR diff @> '[{"path": "targets.calories"}]'
   OR diff @> '[{"path": "targets.protein_g"}]' OR diff @> '[{"path": "targets.water_ml"}]';
