-- migration: contract
-- migration-lock: copies plan_history into a partitioned table: history is locked for the whole copy
-- plan_history is partitioned by month of plan_date (declarative range partitioning).
--
-- It grows by millions of rows a month and is never updated. With one partition a month,
-- the indexes a night's writes touch are that month's (small enough to stay cached, where
-- one index over years of history would not), queries on a date range read only their
-- months, and old months can be archived or dropped whole (DETACH PARTITION) instead of
-- deleted row by row. One user's history probes each month's index once.
--
-- Partitions are made on demand: before a batch writes rows for a month that has no
-- partition yet, the job calls plan_history_partition_for(date), which runs as the owner
-- of plan_history (the job's role has no DDL rights). There is no default partition, so a
-- month's partition can always be created later.

-- The existing table and the views over it make way.
DROP VIEW plan_current;
DROP VIEW plan_history_changes;
DROP VIEW plan_history_flat;
ALTER TABLE plan_history RENAME TO plan_history_before_0006;

CREATE TABLE plan_history (
    id             bigint GENERATED ALWAYS AS IDENTITY,
    user_id        bigint NOT NULL,
    plan_date      date NOT NULL,
    -- n: how many earlier rows this user has for the same plan date (0 for a scheduled
    -- plan, 1.. for same-day manual reruns); makes a duplicate row impossible.
    seq            integer NOT NULL DEFAULT 0,
    generated_at   timestamptz NOT NULL,
    run_id         bigint NOT NULL,
    reasons        text[] NOT NULL,
    snapshot       jsonb NOT NULL,
    previous       jsonb,
    diff           jsonb NOT NULL,
    rules_version  text NOT NULL
) PARTITION BY RANGE (plan_date);

-- Creates the partition of the month of `day` unless it exists: plan_history_YYYY_MM.
CREATE FUNCTION plan_history_partition_for(day date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER
AS $$
DECLARE
    first_day date := date_trunc('month', day)::date;
    partition_name text := 'plan_history_' || to_char(first_day, 'YYYY_MM');
BEGIN
    IF to_regclass(partition_name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF plan_history FOR VALUES FROM (%L) TO (%L)',
                       partition_name, first_day, (first_day + interval '1 month')::date);
    END IF;
    RETURN partition_name;
EXCEPTION
    -- Two workers or runs asked at once: the other one created it.
    WHEN duplicate_table OR unique_violation THEN
        RETURN partition_name;
END
$$;
-- A SECURITY DEFINER function must not find objects through a schema its caller controls.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION plan_history_partition_for(date) SET search_path = %I, pg_catalog, pg_temp',
                   current_schema());
END
$$;
REVOKE ALL ON FUNCTION plan_history_partition_for(date) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION plan_history_partition_for(date) TO plan_regen_job;

SELECT plan_history_partition_for(month::date)
FROM (SELECT DISTINCT date_trunc('month', plan_date) AS month FROM plan_history_before_0006) months;

INSERT INTO plan_history (id, user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, previous,
                          diff, rules_version)
OVERRIDING SYSTEM VALUE
SELECT id, user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, previous, diff, rules_version
FROM plan_history_before_0006;
SELECT setval(pg_get_serial_sequence('plan_history', 'id'),
              greatest((SELECT max(id) FROM plan_history), 1), (SELECT max(id) IS NOT NULL FROM plan_history));
DROP TABLE plan_history_before_0006;

-- A partitioned table's unique keys include the partition key: (id, plan_date).
ALTER TABLE plan_history ADD PRIMARY KEY (id, plan_date);
-- "one user's history" (newest first) and the duplicate guard in one index
CREATE UNIQUE INDEX plan_history_user_date_seq_idx ON plan_history (user_id, plan_date, seq);
-- "everything on a date"
CREATE INDEX plan_history_plan_date_idx ON plan_history (plan_date);
-- "what did run N write", and prune's check that no history row names a run
CREATE INDEX plan_history_run_idx ON plan_history (run_id);

GRANT SELECT, INSERT, DELETE ON plan_history TO plan_regen_job;

-- The analysts' views, as 0002 and 0005 defined them.
CREATE VIEW plan_history_flat AS
SELECT h.id AS history_id, h.user_id, h.plan_date, h.seq, h.generated_at, h.run_id, h.reasons,
       f.*
FROM plan_history h
CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f;

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

CREATE VIEW plan_current AS
SELECT s.user_id, s.plan_date, s.next_check_at, s.updated_by_run, f.*
FROM plan_state s
JOIN plan_history h ON h.user_id = s.user_id AND h.plan_date = s.plan_date
                   AND h.seq = s.history_rows_on_plan_date - 1
CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f;
