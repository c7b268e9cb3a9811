import Postgres

/// The index on the app's `user_settings(updated_at)` that a run's selection of changed
/// rows needs. The app owns the table, so its owner creates the index; the job only says
/// when it is missing, since without it every run scans the whole table.
public enum UserSettingsIndex {
    /// What `migrate`, `run` and `status` log when the index is missing.
    public static let missingWarning = "user_settings has no index on updated_at: every run scans the whole table "
        + "to find changed rows; as the table's owner run CREATE INDEX CONCURRENTLY user_settings_updated_at_idx "
        + "ON user_settings (updated_at) (docs/operations.md, \"The user_settings index\")"

    /// One row, `present`: true when a valid, unconditional index has `updated_at` as its
    /// first column, or when there is no `user_settings` yet (nothing to warn about).
    static var presenceQuery: (query: SQLQuery, purpose: String) {
        ("""
         SELECT to_regclass('user_settings') IS NULL OR EXISTS (
             SELECT 1 FROM pg_index i
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
             WHERE i.indrelid = to_regclass('user_settings') AND a.attname = 'updated_at'
               AND i.indisvalid AND i.indpred IS NULL) AS present
         """, "checking for the index on user_settings(updated_at)")
    }

    static func isMissing(from result: PostgresResult) throws -> Bool {
        try !result.singleRow().bool("present")
    }

    /// Whether the database `connection` reaches lacks the index.
    public static func isMissing(on connection: PostgresConnection) throws -> Bool {
        try isMissing(from: connection.pipelined([presenceQuery])[0])
    }
}
