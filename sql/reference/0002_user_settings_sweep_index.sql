-- An administrator's step on the app's table (docs: "Indexes on user_settings"): lets the
-- late-row sweep compare a slice of user ids through an index-only scan instead of
-- reading the rows. Without it the sweep still works, reading the table's rows.
CREATE INDEX IF NOT EXISTS user_settings_user_id_updated_at_idx ON user_settings (user_id) INCLUDE (updated_at);
