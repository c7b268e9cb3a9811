-- migration: contract
-- migration-lock: rewrites notification_outbox (a new NOT NULL column filled for every row): its readers and writers wait meanwhile
-- Notification lines are marked emitted per written batch, not per line.
--
-- Marking a line emitted used to rewrite its outbox row (a new row version and four
-- index entries per line): a first run over a million users spent about as long on that
-- UPDATE as on writing the lines. Now each batch transaction writes one
-- notification_batches row with its lines; once the lines are flushed, that one row is
-- marked. A run that emits lines left pending by another (a killed run) moves them to a
-- batch of its own first, since it may hold only some of the pending batch's partitions.

CREATE TABLE notification_batches (
    batch_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      bigint NOT NULL REFERENCES plan_runs (run_id),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    emitted_at  timestamptz               -- NULL: its lines are committed but not emitted
);
CREATE INDEX notification_batches_pending_idx ON notification_batches (batch_id)
    WHERE emitted_at IS NULL;
CREATE INDEX notification_batches_emitted_idx ON notification_batches (emitted_at);

-- Existing lines: one batch per run and state (emitted or pending).
ALTER TABLE notification_outbox ADD COLUMN batch_id bigint;
CREATE TEMP TABLE outbox_batch_map ON COMMIT DROP AS
    SELECT run_id, emitted_at IS NOT NULL AS emitted, max(emitted_at) AS emitted_at,
           min(created_at) AS created_at, NULL::bigint AS batch_id
    FROM notification_outbox GROUP BY 1, 2;
UPDATE outbox_batch_map m SET batch_id = nextval(pg_get_serial_sequence('notification_batches', 'batch_id'));
INSERT INTO notification_batches (batch_id, run_id, created_at, emitted_at) OVERRIDING SYSTEM VALUE
    SELECT batch_id, run_id, created_at, emitted_at FROM outbox_batch_map;
UPDATE notification_outbox o SET batch_id = m.batch_id
FROM outbox_batch_map m WHERE m.run_id = o.run_id AND m.emitted = (o.emitted_at IS NOT NULL);

ALTER TABLE notification_outbox ALTER COLUMN batch_id SET NOT NULL;
DROP INDEX notification_outbox_pending_idx;
ALTER TABLE notification_outbox DROP COLUMN emitted_at;
CREATE INDEX notification_outbox_batch_idx ON notification_outbox (batch_id);
-- The outbox is transient (pruned after emission), and prune keeps every run a line
-- names; the per-line foreign key check cost a first run about 6% of its time.
ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_run_id_fkey;

GRANT SELECT, INSERT, UPDATE, DELETE ON notification_batches TO plan_regen_job;

-- One row per outbox line with the time it was emitted (NULL: pending), for ops.
CREATE VIEW notification_outbox_lines AS
SELECT o.notification_id, o.user_id, o.run_id, o.created_at, o.payload, o.batch_id, b.emitted_at
FROM notification_outbox o JOIN notification_batches b ON b.batch_id = o.batch_id;
GRANT SELECT ON notification_outbox_lines TO plan_regen_job;
