import CLibPQ

/// What a `forEachRow` body wants next.
public enum PostgresStreamAction: Sendable {
    /// Deliver the next row.
    case `continue`
    /// Stop here; the rest of the result is cancelled and discarded.
    case stop
}

extension PostgresConnection {
    /// Runs one query and hands its rows to `body` one at a time, as they
    /// arrive (libpq single-row mode), so memory stays flat however large the result.
    /// Each row's `PGresult` is freed once `body` is done with it.
    ///
    /// When `body` returns `.stop` or throws, the rest of the query is cancelled and
    /// drained, so the connection is ready for the next statement; a thrown error is
    /// rethrown unchanged.
    ///
    /// - Returns: the number of rows handed to `body`.
    /// - Throws: `PostgresError` (`.queryFailed` with SQLSTATE, also when the server
    ///   fails midway through the rows; `.connectionLost`).
    @discardableResult
    public func forEachRow(
        _ statement: SQLQuery,
        purpose: String,
        _ body: (PostgresRow) throws -> PostgresStreamAction
    ) throws -> Int {
        let (sql, texts) = try statement.prepared(purpose: purpose)
        try sendDeferred()
        if needsSettingsWithStatement {
            // Single-row mode cannot share a pipeline with the settings statement: a short
            // transaction carries them instead.
            return try withTransaction { try $0.forEachRow(statement, purpose: purpose, body) }
        }
        roundTrips += 1
        let sent = withCStringArray(texts) { values in
            PQsendQueryParams(handle, sql, Int32(values.count), nil, values, nil, nil, statement.resultFormat)
        }
        guard sent == 1 else { throw failure(nil, code: .queryFailed, purpose: purpose) }
        guard PQsetSingleRowMode(handle) == 1 else {
            _ = drainResults(purpose: purpose)
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "libpq refused single-row mode")
        }

        var delivered = 0
        var columns: PostgresColumns?
        var serverError: PostgresError?
        while let handleOfResult = PQgetResult(handle) {
            let status = PQresultStatus(handleOfResult)
            guard status == PGRES_SINGLE_TUPLE else {
                if status != PGRES_TUPLES_OK && serverError == nil {
                    serverError = failure(handleOfResult, code: .queryFailed, purpose: purpose)
                }
                PQclear(handleOfResult)
                continue
            }
            let result = PostgresResult(handle: handleOfResult, purpose: purpose, columns: columns)
            columns = result.columns
            delivered += 1
            let action: PostgresStreamAction
            do {
                action = try body(result[0])
            } catch {
                cancelAndDrain()
                throw error
            }
            if action == .stop {
                cancelAndDrain()
                return delivered
            }
        }
        if let serverError { throw serverError }
        return delivered
    }

    /// Asks the server to stop the running query and discards what it still sends.
    /// Only called while a query is in flight, and draining waits for the server to be
    /// idle again, so the cancel cannot hit a later statement.
    private func cancelAndDrain() {
        if let cancel = PQgetCancel(handle) {
            var errorBuffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &errorBuffer, Int32(errorBuffer.count))
            PQfreeCancel(cancel)
        }
        while let result = PQgetResult(handle) {
            PQclear(result)
        }
    }
}
