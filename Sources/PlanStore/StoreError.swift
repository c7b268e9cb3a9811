/// What went wrong in the store, said so that ops know what to do next.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case migrationEdited(name: String)
    case schemaBehind(pendingMigrations: [String])
    case schemaAhead(unknownMigrations: [String])
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
        case .schemaAhead(let unknown):
            return "the database has migrations this binary does not know (\(unknown.joined(separator: ", "))); "
                + "it is older than the schema: deploy the newer plan-regen"
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
