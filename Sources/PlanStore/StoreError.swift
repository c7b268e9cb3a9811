/// What went wrong in the store, said so that ops know what to do next.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case migrationEdited(name: String)
    case schemaBehind(pendingMigrations: [String])
    /// Migrations this binary does not know, and not expand ones (or recorded without a
    /// kind); `schemaLevel` is the newest migration the binary knows.
    case schemaAhead(unknownMigrations: [String], schemaLevel: String)
    /// `migrate --contract` found a recent run of a binary that does not know `migration`.
    case contractWaitsForOlderBinaries(migration: String, runID: Int64, binaryVersion: String, schemaLevel: String?,
                                       startedAt: String, window: Duration)
    /// A statement of `migration` waited `lockWait` for a lock, `attempts` times; each
    /// attempt was rolled back.
    case migrationLockNotGranted(migration: String, attempts: Int, lockWait: Duration)
    case corruptState(userID: Int64, detail: String)
    /// A writing command reached a server that takes no writes (a hot standby, or
    /// `default_transaction_read_only`).
    case readOnlyServer(host: String, port: String, standby: Bool)
    /// The run's claim on some of its partitions lapsed and another run took them over:
    /// it must not write for their users any more.
    case claimLost(runID: Int64, partitions: [Int])

    public var description: String {
        switch self {
        case .migrationEdited(let name):
            return "migration \(name) differs from the one applied to this database; "
                + "never edit an applied migration, add a new one"
        case .schemaBehind(let pending):
            return "the database schema is behind this binary (pending: \(pending.joined(separator: ", "))); "
                + "run `plan-regen migrate` first"
        case .schemaAhead(let unknown, let level):
            return "the database has migrations this binary does not know (\(unknown.joined(separator: ", "))), "
                + "and they are contract migrations (or recorded without a kind): this binary (schema \(level)) "
                + "cannot run on the schema after them; deploy the newer plan-regen that applied them "
                + "(CHANGELOG.md lists each release's migrations; docs/upgrading.md, \"Rolling back\")"
        case .contractWaitsForOlderBinaries(let migration, let runID, let version, let level, let startedAt, let window):
            let seconds = window.components.seconds
            let span = seconds % 3600 == 0 ? "\(seconds / 3600) h" : "\(seconds) s"
            return "contract migration \(migration) not applied: run \(runID) of plan-regen \(version) "
                + "(schema \(level ?? "older than 0013, unrecorded")), which does not know it, started at \(startedAt), "
                + "within the last \(span), so that binary may still be deployed or be rolled back to, "
                + "and it refuses to run after \(migration); once every job runs a release that knows \(migration) "
                + "(plan-regen --version: schema \(migration) or later) and none older has run for "
                + "\(span), run `plan-regen migrate --contract` again (--older-runs-window sets the "
                + "hours; docs/upgrading.md)"
        case .migrationLockNotGranted(let migration, let attempts, let lockWait):
            return "migration \(migration) not applied: \(attempts) times a statement of it waited "
                + "\(lockWait.components.seconds) s for a lock on a table it alters (another session holds one: a long "
                + "query or an open transaction; see pg_locks and pg_stat_activity), and each attempt was rolled back; "
                + "nothing of it is applied: run `plan-regen migrate` again, in a quieter moment (docs/upgrading.md)"
        case .readOnlyServer(let host, let port, let standby):
            let what = standby ? "is a hot standby (read-only, in recovery)" : "accepts only read-only transactions"
            return "the server at \(host):\(port) \(what), and this command writes; connect to the primary: "
                + "list every host and add target_session_attrs=read-write to the connection string "
                + "(host=db1,db2 port=5432,5432 target_session_attrs=read-write, or "
                + "postgresql://db1:5432,db2:5432/app?target_session_attrs=read-write, or "
                + "PGTARGETSESSIONATTRS=read-write); history, explain and run --dry-run work on a standby"
        case .claimLost(let runID, let partitions):
            return "run \(runID) lost its claim on \(partitions.count) user partitions to another run "
                + "(its claim lapsed without progress for longer than --claim-ttl); the batches it committed stay, "
                + "the other run does the rest"
        case .corruptState(let userID, let detail):
            return "user \(userID): stored plan state cannot be read (\(detail)); "
                + "run `plan-regen run --user \(userID)` to rebuild it"
        }
    }
}
