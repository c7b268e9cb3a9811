-- The app's user_settings table, exactly as shared/spec/plan-rules.md section 1 shows it.
--
-- The APP owns this table; plan-regen only reads it. This file is applied by
-- `plan-regen migrate --with-reference-schema` for development, demos and tests only.
-- No CHECK constraints on purpose: the job must cope with whatever the app writes.
CREATE TABLE IF NOT EXISTS user_settings (
    user_id               bigint PRIMARY KEY,
    date_of_birth         date,
    gender                text,
    height_cm             numeric,
    current_weight_kg     numeric,
    target_weight_kg      numeric,
    primary_goal          text,
    target_date           date,
    activity_level        text,
    dietary_preferences   text[],
    allergies             text[],
    meals_per_day         integer DEFAULT 3,
    timezone              text DEFAULT 'UTC',
    onboarding_completed  boolean,
    updated_at            timestamptz
);

-- An administrator's step on the app's table (see README, "Indexes on user_settings"):
-- lets a run find changed rows without scanning every user.
CREATE INDEX IF NOT EXISTS user_settings_updated_at_idx ON user_settings (updated_at);
