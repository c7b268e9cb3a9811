import CLibPQ

extension PostgresConnection {
    /// Runs one statement (its values as parameters, in text format through
    /// `PQexecParams`; its rows in text format unless `SQLQuery.binaryResults()`) and
    /// returns all its rows in memory. For results too large for
    /// memory use `forEachRow`.
    ///
    /// - Parameters:
    ///   - purpose: what the statement is for, in words for an operator, e.g.
    ///     "reading changed user_settings"; it appears in every error.
    /// - Throws: `PostgresError` (`.queryFailed` with the server's SQLSTATE,
    ///   `.connectionLost`, `.invalidParameter`, `.unexpectedResult` for COPY statements).
    public func query(_ statement: SQLQuery, purpose: String) throws -> PostgresResult {
        if beginIsDeferred || needsSettingsWithStatement {
            // With the transaction's deferred BEGIN, or the settings of its own implicit
            // transaction, in one round trip.
            return try pipelined([(statement, purpose)])[0]
        }
        let (sql, texts) = try statement.prepared(purpose: purpose)
        roundTrips += 1
        let result = withCStringArray(texts) { values in
            PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, statement.resultFormat)
        }
        return try checked(result, purpose: purpose)
    }

    /// Runs one statement and returns the number of rows it affected (inserted, updated,
    /// deleted; 0 for statements without a count).
    @discardableResult
    public func execute(_ statement: SQLQuery, purpose: String) throws -> Int {
        try query(statement, purpose: purpose).affectedRows
    }

    /// Runs SQL text that may hold several statements separated by `;` (migrations,
    /// fixtures) with the simple query protocol. Takes no parameters: use it only for
    /// SQL written by developers, never for text built from data. The transaction
    /// settings are not sent with it: call it inside `withTransaction` when they matter.
    public func executeScript(_ sql: String, purpose: String) throws {
        try sendDeferred()
        roundTrips += 1
        _ = try checked(PQexec(handle, sql), purpose: purpose)
    }

    /// Wraps a finished result, or turns it into the matching error.
    private func checked(_ result: OpaquePointer?, purpose: String) throws -> PostgresResult {
        guard let result else {
            throw failure(nil, code: .queryFailed, purpose: purpose)
        }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(handle: result, purpose: purpose)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            PQclear(result)
            abandonCopy()
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "the statement started a COPY; use copyIn for COPY FROM STDIN")
        default:
            let error = failure(result, code: .queryFailed, purpose: purpose)
            PQclear(result)
            throw error
        }
    }

    /// Leaves a COPY that a plain query started, so the connection is usable again.
    private func abandonCopy() {
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_COPY_IN {
                _ = PQputCopyEnd(handle, "COPY is not supported through query()")
            } else if status == PGRES_COPY_OUT {
                var buffer: UnsafeMutablePointer<CChar>?
                while PQgetCopyData(handle, &buffer, 0) > 0 {
                    PQfreemem(buffer)
                }
            }
            if PQstatus(handle) == CONNECTION_BAD { return }
        }
    }
}
