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

-- The columns plan_history_flat and plan_history_changes take from plan_history.
DO $$
DECLARE
    view_name text;
    entry record;
BEGIN
    FOREACH view_name IN ARRAY ARRAY['plan_history_flat', 'plan_history_changes'] LOOP
        FOR entry IN SELECT * FROM (VALUES
            ('history_id', 'The plan_history row''s id.'),
            ('user_id', 'The user (user_settings.user_id).'),
            ('plan_date', 'The day the plan is for, in the user''s time zone.'),
            ('seq', '0, or 1, 2, ... for same-day manual reruns; the latest plan of a day has the highest.'),
            ('generated_at', 'When the run wrote the plan (the run''s instant).'),
            ('run_id', 'The run that wrote the plan (plan_runs.run_id).'),
            ('reasons', 'Why the plan was written: created, settings_changed, phase_switch, birthday, rules_changed, manual_rerun.')
        ) AS c(name, description) LOOP
            EXECUTE format('COMMENT ON COLUMN %I.%I IS %L', view_name, entry.name, entry.description);
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON COLUMN plan_history_changes.path IS
    'The changed field, section.field: targets.calories, phase.phase, flags, rules_version.';
COMMENT ON COLUMN plan_history_changes.section IS
    'The part of path before the dot: inputs, targets, phase, projection, flags, rules_version.';
COMMENT ON COLUMN plan_history_changes.field IS 'The part of path after the dot; NULL for flags and rules_version.';
COMMENT ON COLUMN plan_history_changes.before IS 'The value in the previous plan (JSON).';
COMMENT ON COLUMN plan_history_changes.after IS 'The value in this plan (JSON).';
COMMENT ON COLUMN plan_history_changes.delta IS 'after - before when both are numbers, else NULL.';

COMMENT ON COLUMN plan_current.user_id IS 'The user (user_settings.user_id).';
COMMENT ON COLUMN plan_current.plan_date IS 'The current plan''s date, in the user''s time zone.';
COMMENT ON COLUMN plan_current.next_check_at IS
    'The next instant the plan can change on its own (phase switch, birthday, a change waiting for its midnight); NULL when none.';
COMMENT ON COLUMN plan_current.updated_by_run IS 'The last run that evaluated the user (may have been pruned from plan_runs).';

-- The snapshot's columns (plan_snapshot_fields), the same in both views.
DO $$
DECLARE
    view_name text;
    entry record;
BEGIN
    FOREACH view_name IN ARRAY ARRAY['plan_history_flat', 'plan_current'] LOOP
        FOR entry IN SELECT * FROM (VALUES
            ('rules_version', 'The rules version that computed the plan (2026.1). Text, never a number.'),
            ('calories', 'Daily calories, kcal.'),
            ('protein_g', 'Daily protein, g.'),
            ('fat_g', 'Daily fat, g.'),
            ('carbs_g', 'Daily carbohydrates, g.'),
            ('water_ml', 'Daily water, ml.'),
            ('bmr', 'Basal metabolic rate (Mifflin-St Jeor), kcal.'),
            ('tdee', 'Total daily energy expenditure, kcal.'),
            ('phase', 'MATADOR phase: deficit or maintenance (lose_weight), none for other goals.'),
            ('cycle_start_date', 'First day of the current MATADOR cycle; NULL for other goals.'),
            ('phase_day', 'Day within the current phase, 0-13; NULL for other goals.'),
            ('next_phase_switch_date', 'The day the phase switches next; NULL for other goals.'),
            ('weekly_rate_kg', 'Projected weight change per week, kg.'),
            ('estimated_weeks', 'Weeks to the target weight at that rate.'),
            ('projected_date', 'When the target weight is reached at that rate.'),
            ('recommended_target_date', 'A realistic target date when the user''s is not (flag timeline_unrealistic), else NULL.'),
            ('flags', 'Sorted: calorie_floor_applied, macro_overflow, projection_beyond_10_years, target_date_passed, timeline_unrealistic.'),
            ('weight_kg_reported', 'The weight in the settings, kg.'),
            ('weight_kg_basis', 'The weight the targets were computed from, kg.'),
            ('target_weight_kg', 'The user''s target weight, kg.'),
            ('target_date', 'The user''s target date.'),
            ('height_cm', 'Height, cm.'),
            ('age', 'Whole years on the plan date.'),
            ('gender', 'As in the settings.'),
            ('primary_goal', 'lose_weight, gain_muscle, maintain_weight or improve_health.'),
            ('activity_level', 'As in the settings.'),
            ('meals_per_day', 'As in the settings.'),
            ('dietary_preferences', 'As in the settings.'),
            ('allergies', 'As in the settings.'),
            ('timezone', 'The user''s IANA time zone, as written in the settings.'),
            ('settings_updated_at', 'The user_settings.updated_at the plan was computed from.')
        ) AS c(name, description) LOOP
            EXECUTE format('COMMENT ON COLUMN %I.%I IS %L', view_name, entry.name, entry.description);
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON COLUMN notification_outbox_lines.notification_id IS 'The line''s id, <user_id>:<plan_date>:<type>:<n>.';
COMMENT ON COLUMN notification_outbox_lines.user_id IS 'The user (user_settings.user_id).';
COMMENT ON COLUMN notification_outbox_lines.run_id IS 'The run that wrote the line.';
COMMENT ON COLUMN notification_outbox_lines.created_at IS 'When the line was committed.';
COMMENT ON COLUMN notification_outbox_lines.payload IS 'The JSON line exactly as emitted (docs/schemas/notification-line.schema.json).';
COMMENT ON COLUMN notification_outbox_lines.batch_id IS 'The line''s notification_batches row.';
COMMENT ON COLUMN notification_outbox_lines.emitted_at IS 'When the line''s batch was written out; NULL while pending.';

-- The tables the views read.
COMMENT ON TABLE plan_history IS
    'Every written plan: snapshot, previous plan and diff (jsonb), partitioned by month of plan_date. Never updated.';
COMMENT ON TABLE plan_state IS
    'What the job remembers per user: which plan_history row is the current plan, and when to look at the user next.';
COMMENT ON TABLE notification_outbox IS 'Notification lines, committed with their plans; pruned 30 days after emission.';
COMMENT ON TABLE notification_batches IS 'One row per batch transaction''s notification lines; emitted_at is NULL while pending.';
