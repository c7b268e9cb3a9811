-- migration: expand
-- Runs with nothing due stop re-reading users whose settings change waits for midnight.
--
-- A settings change takes effect at the first local midnight after its updated_at. Until
-- then the row is "changed" (its updated_at is not the one the job last used), so every
-- run whose look-back window still covered the write read and judged the user again, only
-- to find the same pending change: at ten million users about 13,000 such users made a
-- run with nothing due cost 1.2 s. The run that first judges such a version now records
-- it here; next_check_at already holds its midnight, when the scheduled selection picks
-- the user up. The change selection skips a row whose updated_at equals it (a newer write
-- differs, and is read at once).
ALTER TABLE plan_state ADD COLUMN scheduled_updated_at timestamptz;
COMMENT ON COLUMN plan_state.scheduled_updated_at IS
    'user_settings.updated_at of a pending row version already judged: next_check_at covers it';
