import CLibPQ

extension PostgresConnection {
    /// Bulk-loads rows with `COPY … FROM STDIN` (text format), far faster than INSERTs.
    ///
    /// ```swift
    /// try connection.copyIn("COPY plan_history (user_id, snapshot) FROM STDIN",
    ///                       purpose: "writing plan_history") { writer in
    ///     for plan in plans { try writer.addRow([plan.userID, plan.json]) }
    /// }
    /// ```
    ///
    /// When `body` throws, the COPY is aborted (nothing is written), the connection stays
    /// usable, and the error is rethrown unchanged.
    ///
    /// - Parameter sql: a `COPY table (columns) FROM STDIN` statement in text format.
    /// - Returns: the number of rows the server copied.
    /// - Throws: `PostgresError` (`.copyFailed` with the server's SQLSTATE, e.g. 23505 or
    ///   22P02; `.connectionLost`; `.unexpectedResult` when `sql` is not a COPY FROM STDIN).
    @discardableResult
    public func copyIn(
        _ sql: String,
        purpose: String,
        _ body: (PostgresCopyWriter) throws -> Void
    ) throws -> Int {
        try sendDeferred()
        roundTrips += 2  // the start (CopyInResponse) and the end (CommandComplete)
        guard let start = PQexec(handle, sql) else {
            throw failure(nil, code: .copyFailed, purpose: purpose)
        }
        let startStatus = PQresultStatus(start)
        guard startStatus == PGRES_COPY_IN else {
            let error = startStatus == PGRES_FATAL_ERROR
                ? failure(start, code: .copyFailed, purpose: purpose)
                : PostgresError(
                    code: .unexpectedResult, purpose: purpose,
                    message: "the statement is not a COPY … FROM STDIN")
            PQclear(start)
            throw error
        }
        PQclear(start)

        let writer = PostgresCopyWriter(connection: self, purpose: purpose)
        do {
            try body(writer)
            try writer.flush()
        } catch {
            // Tell the server to abandon the COPY (it answers with an error we expect
            // and drop), so the connection is ready for the next statement.
            _ = PQputCopyEnd(handle, "aborted by the client: \(error)")
            _ = drainResults(purpose: purpose)
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw failure(nil, code: .copyFailed, purpose: purpose)
        }
        switch drainResults(purpose: purpose) {
        case .success(let copied): return copied
        case .failure(let error): throw error
        }
    }

    /// Reads results until libpq returns NULL, so the connection is idle afterwards.
    /// Returns the row count of the last success or the first error.
    func drainResults(purpose: String) -> Result<Int, PostgresError> {
        var outcome: Result<Int, PostgresError> = .success(0)
        while let result = PQgetResult(handle) {
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                if case .success = outcome {
                    outcome = .success(Int(String(cString: PQcmdTuples(result))) ?? 0)
                }
            default:
                if case .success = outcome {
                    outcome = .failure(failure(result, code: .copyFailed, purpose: purpose))
                }
            }
            PQclear(result)
            if PQstatus(handle) == CONNECTION_BAD { break }
        }
        if case .success = outcome, PQstatus(handle) == CONNECTION_BAD {
            outcome = .failure(failure(nil, code: .copyFailed, purpose: purpose))
        }
        return outcome
    }
}
