-- migration: expand
-- The rules version of each user's current plan beside the version of their latest
-- evaluation (plan-rules.md section 2.1): during a rollout, the users whose current plan an
-- older version made wait for their local midnight, and `status` counts them without
-- reading plan_history. NULL where a release before this one wrote the state: the
-- evaluation's version (rules_version) stands for it then, as it did.
ALTER TABLE plan_state ADD COLUMN plan_rules_version text;
COMMENT ON COLUMN plan_state.plan_rules_version IS
    'rules version of the current plan (NULL: before the first plan, or written by a release before 1.1.0: see rules_version)';
