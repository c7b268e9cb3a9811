-- migration: expand
-- Analysts (docs/analysts.md): the read-only role plan_regen_analyst, which may read the
-- analyst views and nothing else, and a comment on every analyst view, its columns and the
-- tables they read, so BI tools show what each column means. Depends on 0001-0010 only.

-- Roles belong to the cluster: another database, or a DBA, may have created it. A role
-- that may not create roles leaves it to a DBA, saying what to run, rather than failing
-- the upgrade.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_analyst') THEN
        CREATE ROLE plan_regen_analyst NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL; -- created by a concurrent migration of another database
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'role plan_regen_analyst does not exist and % may not create roles: a DBA runs CREATE ROLE plan_regen_analyst NOLOGIN; then GRANT USAGE ON SCHEMA % TO plan_regen_analyst; GRANT SELECT ON plan_history_flat, plan_history_changes, plan_current, notification_outbox_lines TO plan_regen_analyst',
            current_user, current_schema();
END
$$;

-- Views only: they run with their owner's rights, so the role needs no grant on a table.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_analyst') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO plan_regen_analyst', current_schema());
        GRANT SELECT ON plan_history_flat, plan_history_changes, plan_current, notification_outbox_lines
            TO plan_regen_analyst;
    END IF;
END
$$;

COMMENT ON VIEW plan_history_flat IS
    'One row per written plan (plan_history), the snapshot as typed columns. Filter on user_id and plan_date.';
COMMENT ON VIEW plan_history_changes IS
    'One row per changed field of a written plan (an entry of plan_history.diff). A first plan has none.';
COMMENT ON VIEW plan_current IS
    'One row per user with a plan: the current plan, the plan_history row plan_state points at.';
COMMENT ON VIEW notification_outbox_lines IS
    'One row per notification line the job committed, with when its batch was emitted. Pruned 30 days after emission.';

-- Every column of the analyst views: the views it appears in, its name, what it means.
DO $$
DECLARE
    entry record;
    view_name text;
BEGIN
    FOR entry IN SELECT * FROM (VALUES
        ('{plan_history_flat,plan_history_changes}', 'history_id', 'The plan_history row''s id.'),
        ('{plan_history_flat,plan_history_changes}', 'user_id', 'The user (user_settings.user_id).'),
        ('{plan_history_flat,plan_history_changes}', 'plan_date', 'The day the plan is for, in the user''s time zone.'),
        ('{plan_history_flat,plan_history_changes}', 'seq', '0, or 1, 2, ... for same-day manual reruns; the latest plan of a day has the highest.'),
        ('{plan_history_flat,plan_history_changes}', 'generated_at', 'When the run wrote the plan (the run''s instant).'),
        ('{plan_history_flat,plan_history_changes}', 'run_id', 'The run that wrote the plan (plan_runs.run_id).'),
        ('{plan_history_flat,plan_history_changes}', 'reasons', 'Why the plan was written: created, settings_changed, phase_switch, birthday, rules_changed, manual_rerun.'),
        ('{plan_history_changes}', 'path', 'The changed field, section.field: targets.calories, phase.phase, flags, rules_version.'),
        ('{plan_history_changes}', 'section', 'The part of path before the dot: inputs, targets, phase, projection, flags, rules_version.'),
        ('{plan_history_changes}', 'field', 'The part of path after the dot; NULL for flags and rules_version.'),
        ('{plan_history_changes}', 'before', 'The value in the previous plan (JSON).'),
        ('{plan_history_changes}', 'after', 'The value in this plan (JSON).'),
        ('{plan_history_changes}', 'delta', 'after - before when both are numbers, else NULL.'),
        ('{plan_current}', 'user_id', 'The user (user_settings.user_id).'),
        ('{plan_current}', 'plan_date', 'The current plan''s date, in the user''s time zone.'),
        ('{plan_current}', 'next_check_at', 'The next instant the plan can change on its own (phase switch, birthday, a change waiting for its midnight); NULL when none.'),
        ('{plan_current}', 'updated_by_run', 'The last run that evaluated the user (may have been pruned from plan_runs).'),
        ('{plan_history_flat,plan_current}', 'rules_version', 'The rules version that computed the plan (2026.1). Text, never a number.'),
        ('{plan_history_flat,plan_current}', 'calories', 'Daily calories, kcal.'),
        ('{plan_history_flat,plan_current}', 'protein_g', 'Daily protein, g.'),
        ('{plan_history_flat,plan_current}', 'fat_g', 'Daily fat, g.'),
        ('{plan_history_flat,plan_current}', 'carbs_g', 'Daily carbohydrates, g.'),
        ('{plan_history_flat,plan_current}', 'water_ml', 'Daily water, ml.'),
        ('{plan_history_flat,plan_current}', 'bmr', 'Basal metabolic rate (Mifflin-St Jeor), kcal.'),
        ('{plan_history_flat,plan_current}', 'tdee', 'Total daily energy expenditure, kcal.'),
        ('{plan_history_flat,plan_current}', 'phase', 'MATADOR phase: deficit or maintenance (lose_weight), none for other goals.'),
        ('{plan_history_flat,plan_current}', 'cycle_start_date', 'First day of the current MATADOR cycle; NULL for other goals.'),
        ('{plan_history_flat,plan_current}', 'phase_day', 'Day within the current phase, 0-13; NULL for other goals.'),
        ('{plan_history_flat,plan_current}', 'next_phase_switch_date', 'The day the phase switches next; NULL for other goals.'),
        ('{plan_history_flat,plan_current}', 'weekly_rate_kg', 'Projected weight change per week, kg.'),
        ('{plan_history_flat,plan_current}', 'estimated_weeks', 'Weeks to the target weight at that rate.'),
        ('{plan_history_flat,plan_current}', 'projected_date', 'When the target weight is reached at that rate.'),
        ('{plan_history_flat,plan_current}', 'recommended_target_date', 'A realistic target date when the user''s is not (flag timeline_unrealistic), else NULL.'),
        ('{plan_history_flat,plan_current}', 'flags', 'Sorted: calorie_floor_applied, macro_overflow, projection_beyond_10_years, target_date_passed, timeline_unrealistic.'),
        ('{plan_history_flat,plan_current}', 'weight_kg_reported', 'The weight in the settings, kg.'),
        ('{plan_history_flat,plan_current}', 'weight_kg_basis', 'The weight the targets were computed from, kg.'),
        ('{plan_history_flat,plan_current}', 'target_weight_kg', 'The user''s target weight, kg.'),
        ('{plan_history_flat,plan_current}', 'target_date', 'The user''s target date.'),
        ('{plan_history_flat,plan_current}', 'height_cm', 'Height, cm.'),
        ('{plan_history_flat,plan_current}', 'age', 'Whole years on the plan date.'),
        ('{plan_history_flat,plan_current}', 'gender', 'As in the settings.'),
        ('{plan_history_flat,plan_current}', 'primary_goal', 'lose_weight, gain_muscle, maintain_weight or improve_health.'),
        ('{plan_history_flat,plan_current}', 'activity_level', 'As in the settings.'),
        ('{plan_history_flat,plan_current}', 'meals_per_day', 'As in the settings.'),
        ('{plan_history_flat,plan_current}', 'dietary_preferences', 'As in the settings.'),
        ('{plan_history_flat,plan_current}', 'allergies', 'As in the settings.'),
        ('{plan_history_flat,plan_current}', 'timezone', 'The user''s IANA time zone, as written in the settings.'),
        ('{plan_history_flat,plan_current}', 'settings_updated_at', 'The user_settings.updated_at the plan was computed from.'),
        ('{notification_outbox_lines}', 'notification_id', 'The line''s id, <user_id>:<plan_date>:<type>:<n>.'),
        ('{notification_outbox_lines}', 'user_id', 'The user (user_settings.user_id).'),
        ('{notification_outbox_lines}', 'run_id', 'The run that wrote the line.'),
        ('{notification_outbox_lines}', 'created_at', 'When the line was committed.'),
        ('{notification_outbox_lines}', 'payload', 'The JSON line exactly as emitted (docs/schemas/notification-line.schema.json).'),
        ('{notification_outbox_lines}', 'batch_id', 'The line''s notification_batches row.'),
        ('{notification_outbox_lines}', 'emitted_at', 'When the line''s batch was written out; NULL while pending.')
    ) AS c(views, name, description) LOOP
        FOREACH view_name IN ARRAY entry.views::text[] LOOP
            EXECUTE format('COMMENT ON COLUMN %I.%I IS %L', view_name, entry.name, entry.description);
        END LOOP;
    END LOOP;
END
$$;

-- The tables the views read.
COMMENT ON TABLE plan_history IS
    'Every written plan: snapshot, previous plan and diff (jsonb), partitioned by month of plan_date. Never updated.';
COMMENT ON TABLE plan_state IS
    'What the job remembers per user: which plan_history row is the current plan, and when to look at the user next.';
COMMENT ON TABLE notification_outbox IS 'Notification lines, committed with their plans; pruned 30 days after emission.';
COMMENT ON TABLE notification_batches IS 'One row per batch transaction''s notification lines; emitted_at is NULL while pending.';
