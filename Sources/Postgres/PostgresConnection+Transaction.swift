extension PostgresConnection {
    /// The isolation levels a transaction can ask for.
    public enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` inside BEGIN … COMMIT, with `transactionSettings` applied at BEGIN. When `body` throws, the transaction is rolled
    /// back and the error is rethrown unchanged (a failing ROLLBACK, e.g. because the
    /// connection is gone, does not hide it).
    ///
    /// - Parameter isolation: nil keeps the session default (READ COMMITTED).
    public func withTransaction<Result>(
        isolation: IsolationLevel? = nil,
        _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        let begin: SQLQuery = isolation.map { "BEGIN ISOLATION LEVEL \(unescaped: $0.rawValue)" } ?? "BEGIN"
        if transactionSettings.isEmpty {
            try execute(begin, purpose: "beginning a transaction")
        } else {
            // BEGIN and the settings in one round trip; they hold until COMMIT/ROLLBACK.
            _ = try inOneRoundTrip([begin, transactionSettings.statement], purpose: "beginning a transaction")
        }
        let value: Result
        do {
            value = try body(self)
        } catch {
            _ = try? execute("ROLLBACK", purpose: "rolling back after an error")
            throw error
        }
        try execute("COMMIT", purpose: "committing a transaction")
        return value
    }
}
