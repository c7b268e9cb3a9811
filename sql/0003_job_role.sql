-- migration: expand
-- Least privilege: the role `plan-regen run` and `plan-regen forget` work under.
-- It may read the app's user_settings and read/write the job's own tables, nothing else:
-- no DDL, no other table, no writes to user_settings. Migrations run as the owner of the
-- job's tables; the job logs in as a LOGIN role that is a member of plan_regen_job
-- (README "Least privilege"). A later migration that adds a table grants on it here too.

-- Roles belong to the cluster, not the database: another database may have created it.
-- A DBA can create it beforehand; then the owner needs no CREATEROLE.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_job') THEN
        CREATE ROLE plan_regen_job NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL; -- created by a concurrent migration of another database
    WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'role plan_regen_job does not exist and % may not create roles', current_user
            USING HINT = 'ask a DBA to run: CREATE ROLE plan_regen_job NOLOGIN; then run plan-regen migrate again';
END
$$;

DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO plan_regen_job', current_schema());
END
$$;

GRANT SELECT ON plan_regen_migrations TO plan_regen_job;           -- the schema drift check
GRANT SELECT, INSERT, UPDATE ON plan_watermarks TO plan_regen_job;
-- DELETE: `plan-regen prune` (old runs, emitted outbox lines, old rejections) and
-- `plan-regen forget` (a user's rows); the job never updates or deletes a plan itself.
GRANT SELECT, INSERT, UPDATE, DELETE ON plan_runs TO plan_regen_job;
GRANT SELECT, INSERT, UPDATE, DELETE ON plan_state TO plan_regen_job;
GRANT SELECT, INSERT, DELETE ON plan_history TO plan_regen_job;
GRANT SELECT, INSERT, DELETE ON plan_rejections TO plan_regen_job;
GRANT SELECT, INSERT, UPDATE, DELETE ON notification_outbox TO plan_regen_job;

-- user_settings is the app's table: it may not exist yet when the job's migrations run,
-- and only its owner may grant on it. Then this step only says what the owner must run.
DO $$
BEGIN
    IF to_regclass('user_settings') IS NULL THEN
        RAISE NOTICE 'user_settings does not exist yet: once it does, its owner runs: GRANT SELECT ON user_settings TO plan_regen_job';
    ELSE
        GRANT SELECT ON user_settings TO plan_regen_job;
    END IF;
EXCEPTION
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'user_settings belongs to another role: its owner runs: GRANT SELECT ON user_settings TO plan_regen_job';
END
$$;
