-- migration: expand
-- Acknowledged delivery of the notification lines (docs/operations.md, "Notification
-- destinations"): a batch is marked emitted once its destination acknowledged it (a
-- file: written and fsync'ed; a webhook: every request of it answered 2xx).
--
-- Delivery is claimed per batch, apart from the planning claims on user partitions: a
-- `plan-regen deliver` in progress never makes a scheduled run skip planning, and one
-- batch is posted by one process at a time. A run writes its batch already claimed by
-- itself, so no other process posts it while the run does.
ALTER TABLE notification_batches
    ADD COLUMN delivery_claimed_by    text,         -- the process key (host, pid, start) of the claimant
    ADD COLUMN delivery_claimed_until timestamptz,  -- renewed while the claimant retries; lapses if it dies
    ADD COLUMN refused_at             timestamptz,  -- the last time the receiver refused it (a 4xx not retried)
    ADD COLUMN refusal                text,         -- that answer: status and the first line of its body
    ADD COLUMN set_aside_at           timestamptz,  -- an operator set it aside: a dead letter, never delivered
    ADD COLUMN set_aside_reason       text;

COMMENT ON COLUMN notification_batches.emitted_at IS
    'when the destination acknowledged the lines (stdout: written; a file: written and fsync''ed; a webhook: answered 2xx); NULL: pending';
COMMENT ON COLUMN notification_batches.refused_at IS
    'the last time the webhook receiver refused the batch (a 4xx other than 408 and 429): it stays pending and blocks its users'' later lines until delivered or set aside';
COMMENT ON COLUMN notification_batches.set_aside_at IS
    'set aside by an operator (plan-regen deliver --set-aside): a dead letter, kept and never delivered';

-- Dead letters: batches set aside, with their reason and lines, for the operator.
CREATE VIEW notification_dead_letters AS
SELECT b.batch_id, b.run_id, b.created_at, b.refused_at, b.refusal, b.set_aside_at, b.set_aside_reason,
       o.notification_id, o.user_id, o.payload
FROM notification_batches b JOIN notification_outbox o ON o.batch_id = b.batch_id
WHERE b.set_aside_at IS NOT NULL;
COMMENT ON VIEW notification_dead_letters IS
    'notification lines of batches an operator set aside (plan-regen deliver --set-aside): never delivered';
COMMENT ON COLUMN notification_dead_letters.batch_id IS 'the notification_batches row set aside';
COMMENT ON COLUMN notification_dead_letters.run_id IS 'the run that committed the batch';
COMMENT ON COLUMN notification_dead_letters.created_at IS 'when the batch was committed';
COMMENT ON COLUMN notification_dead_letters.refused_at IS 'the last time the webhook receiver refused it (NULL: never refused)';
COMMENT ON COLUMN notification_dead_letters.refusal IS 'that answer: HTTP status and the first line of its body';
COMMENT ON COLUMN notification_dead_letters.set_aside_at IS 'when an operator set the batch aside';
COMMENT ON COLUMN notification_dead_letters.set_aside_reason IS 'why (--reason, else the refusal)';
COMMENT ON COLUMN notification_dead_letters.notification_id IS 'the line''s id, <user_id>:<plan_date>:<type>:<n>';
COMMENT ON COLUMN notification_dead_letters.user_id IS 'the user';
COMMENT ON COLUMN notification_dead_letters.payload IS 'the JSON line, never delivered';
GRANT SELECT ON notification_dead_letters TO plan_regen_job;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_analyst') THEN
        GRANT SELECT ON notification_dead_letters TO plan_regen_analyst;
    END IF;
END
$$;

-- A run that planned but left lines pending ends delivery_pending (exit 6).
COMMENT ON COLUMN plan_runs.status IS
    'running, succeeded, held_by_others, held_too_long, delivery_pending, stopped, failed, abandoned (docs/operations.md "Exit codes and run statuses")';
