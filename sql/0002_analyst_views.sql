-- migration: expand
-- Views for analysts (README "Analysts"): plans as typed columns instead of JSON.
-- They read the job's tables only; nothing here is used by the run itself.

-- The typed fields of one snapshot (plan-rules.md section 6). An inlinable SQL
-- function, so a filter on a view's user_id or plan_date still uses the indexes.
CREATE FUNCTION plan_snapshot_fields(snapshot jsonb)
RETURNS TABLE (
    rules_version            text,
    calories                 integer,
    protein_g                integer,
    fat_g                    integer,
    carbs_g                  integer,
    water_ml                 integer,
    bmr                      integer,
    tdee                     integer,
    phase                    text,
    cycle_start_date         date,
    phase_day                integer,
    next_phase_switch_date   date,
    weekly_rate_kg           numeric,
    estimated_weeks          integer,
    projected_date           date,
    recommended_target_date  date,
    flags                    text[],
    weight_kg_reported       numeric,
    weight_kg_basis          numeric,
    target_weight_kg         numeric,
    target_date              date,
    height_cm                numeric,
    age                      integer,
    gender                   text,
    primary_goal             text,
    activity_level           text,
    meals_per_day            integer,
    dietary_preferences      text[],
    allergies                text[],
    timezone                 text,
    settings_updated_at      timestamptz
)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT snapshot->>'rules_version',
           (snapshot->'targets'->>'calories')::integer,
           (snapshot->'targets'->>'protein_g')::integer,
           (snapshot->'targets'->>'fat_g')::integer,
           (snapshot->'targets'->>'carbs_g')::integer,
           (snapshot->'targets'->>'water_ml')::integer,
           (snapshot->'targets'->>'bmr')::integer,
           (snapshot->'targets'->>'tdee')::integer,
           snapshot->'phase'->>'phase',
           (snapshot->'phase'->>'cycle_start_date')::date,
           (snapshot->'phase'->>'phase_day')::integer,
           (snapshot->'phase'->>'next_phase_switch_date')::date,
           (snapshot->'projection'->>'weekly_rate_kg')::numeric,
           (snapshot->'projection'->>'estimated_weeks')::integer,
           (snapshot->'projection'->>'projected_date')::date,
           (snapshot->'projection'->>'recommended_target_date')::date,
           ARRAY(SELECT jsonb_array_elements_text(snapshot->'flags')),
           (snapshot->'inputs'->>'weight_kg_reported')::numeric,
           (snapshot->'inputs'->>'weight_kg_basis')::numeric,
           (snapshot->'inputs'->>'target_weight_kg')::numeric,
           (snapshot->'inputs'->>'target_date')::date,
           (snapshot->'inputs'->>'height_cm')::numeric,
           (snapshot->'inputs'->>'age')::integer,
           snapshot->'inputs'->>'gender',
           snapshot->'inputs'->>'primary_goal',
           snapshot->'inputs'->>'activity_level',
           (snapshot->'inputs'->>'meals_per_day')::integer,
           ARRAY(SELECT jsonb_array_elements_text(snapshot->'inputs'->'dietary_preferences')),
           ARRAY(SELECT jsonb_array_elements_text(snapshot->'inputs'->'allergies')),
           snapshot->'inputs'->>'timezone',
           (snapshot->'inputs'->>'settings_updated_at')::timestamptz
$$;

-- One row per written plan (plan_history), newest plans of a user found by
-- (user_id, plan_date, seq); `seq` > 0 marks a same-day manual rerun.
CREATE VIEW plan_history_flat AS
SELECT h.id AS history_id, h.user_id, h.plan_date, h.seq, h.generated_at, h.run_id, h.reasons,
       f.*
FROM plan_history h
CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f;

-- One row per changed field of a written plan (the entries of plan_history.diff):
-- `section` and `field` split the path ("targets" and "calories" for
-- "targets.calories"); `delta` is after - before for numbers, else NULL.
CREATE VIEW plan_history_changes AS
SELECT h.id AS history_id, h.user_id, h.plan_date, h.seq, h.generated_at, h.run_id, h.reasons,
       d.entry->>'path' AS path,
       split_part(d.entry->>'path', '.', 1) AS section,
       nullif(split_part(d.entry->>'path', '.', 2), '') AS field,
       d.entry->'before' AS before,
       d.entry->'after' AS after,
       (d.entry->>'delta')::numeric AS delta
FROM plan_history h
CROSS JOIN LATERAL jsonb_array_elements(h.diff) AS d(entry);

-- Each user's current plan (plan_state keeps it as JSON text for the job's speed).
CREATE VIEW plan_current AS
SELECT s.user_id, s.plan_date, s.next_check_at, s.updated_by_run, f.*
FROM plan_state s
CROSS JOIN LATERAL plan_snapshot_fields(s.snapshot::jsonb) f
WHERE s.snapshot IS NOT NULL;

-- The run that wrote each row. Analysts ask "what did run N write"; `plan-regen prune`
-- keeps the runs history still references, and deleting a plan_runs row makes
-- PostgreSQL look for referencing rows: without these indexes, one full scan per run.
CREATE INDEX plan_history_run_idx ON plan_history (run_id);
CREATE INDEX notification_outbox_run_idx ON notification_outbox (run_id);
