-- migration: expand
-- Releases that can roll back (docs/upgrading.md): what each migration does to the
-- binaries already deployed, readable by a binary that does not know the migration, and
-- which migrations each run's binary knew.

-- expand: the previous release's binary still runs correctly after it; contract: it does
-- not (it waits for `plan-regen migrate --contract`). A row without a kind counts as
-- contract, so rows recorded before this column existed never let a binary run wrongly.
ALTER TABLE plan_regen_migrations ADD COLUMN kind text CHECK (kind IN ('expand', 'contract'));
COMMENT ON COLUMN plan_regen_migrations.kind IS
    'expand: binaries that do not know this migration still run on the schema after it; contract (or NULL): they refuse';

-- The migrations recorded before this one, marked as their files are.
UPDATE plan_regen_migrations m SET kind = k.kind
FROM (VALUES ('0001_plan_tables', 'expand'), ('0002_analyst_views', 'expand'), ('0003_job_role', 'expand'),
             ('0004_notification_batches', 'contract'), ('0005_plan_state_without_snapshot', 'contract'),
             ('0006_partition_plan_history', 'contract'), ('0007_lighter_write_indexes', 'contract'),
             ('0008_partition_claims', 'expand'), ('0009_scheduled_row_version', 'expand'),
             ('0010_history_json_lz4', 'expand'), ('0011_late_row_sweep', 'expand'),
             ('0012_analyst_role_and_comments', 'expand')) AS k (name, kind)
WHERE m.name = k.name;

-- The newest migration the run's binary knows (its schema level, `plan-regen --version`):
-- `migrate --contract` waits while a binary that does not know a contract migration has
-- run recently. NULL: a binary from before 1.0.0, which knows none after 0011.
ALTER TABLE plan_runs ADD COLUMN schema_level text;
COMMENT ON COLUMN plan_runs.schema_level IS
    'the newest migration the binary of the run knows (plan-regen --version, schema)';
