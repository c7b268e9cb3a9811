/// What went wrong in the store, said so that ops know what to do next.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case migrationEdited(name: String)
    case schemaBehind(pendingMigrations: [String])
    case schemaAhead(unknownMigrations: [String])
    case corruptState(userID: Int64, detail: String)

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
        case .corruptState(let userID, let detail):
            return "user \(userID): stored plan state cannot be read (\(detail)); "
                + "run `plan-regen run --user \(userID)` to rebuild it"
        }
    }
}
