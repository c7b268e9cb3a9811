import CLibPQ

extension PostgresConnection {
    /// Runs one parameterized statement once per parameter row, pipelined (libpq
    /// pipeline mode): statements are sent without waiting for each answer, with a sync
    /// point every `syncEvery` statements, and answers are read as they come, so many
    /// small writes cost few round trips.
    ///
    /// Each sync segment is its own implicit transaction: if a statement fails, its
    /// segment is rolled back and the error is thrown, but segments before it stay
    /// committed. Call it inside `withTransaction` for all-or-nothing — also behind a
    /// pooler in transaction mode, which may move a client to another server connection
    /// between segments outside a transaction. `transactionSettings` are not applied here.
    ///
    /// - Returns: the affected row count of each statement, in order.
    /// - Throws: the first failing statement's `PostgresError` (`.queryFailed` with
    ///   SQLSTATE, or `.connectionLost`). The connection is usable afterwards unless lost.
    public func executeBatch(
        _ sql: String,
        _ parameterRows: [[(any PostgresParameter)?]],
        syncEvery: Int = 1000,
        purpose: String
    ) throws -> [Int] {
        try pipeline(sql, parameterRows, syncEvery: syncEvery, purpose: purpose).map(\.affectedRows)
    }

    /// Like `executeBatch`, but returns each statement's rows (e.g. from `RETURNING`).
    public func queryBatch(
        _ sql: String,
        _ parameterRows: [[(any PostgresParameter)?]],
        syncEvery: Int = 1000,
        purpose: String
    ) throws -> [PostgresResult] {
        try pipeline(sql, parameterRows, syncEvery: syncEvery, purpose: purpose)
    }

    private func pipeline(
        _ sql: String,
        _ parameterRows: [[(any PostgresParameter)?]],
        syncEvery: Int,
        purpose: String
    ) throws -> [PostgresResult] {
        precondition(syncEvery > 0, "syncEvery must be positive")
        // Convert (and validate) every parameter before anything is sent.
        let texts = try parameterRows.map { try Self.parameterTexts($0, purpose: purpose) }
        guard !texts.isEmpty else { return [] }
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "cannot enter pipeline mode: \(Self.libpqMessage(handle))")
        }
        var reader = PipelineReader(connection: self, purpose: purpose)
        // Segments of `syncEvery` statements; one segment is sent ahead of the one being
        // read, so the server always has work while the client reads answers.
        let segments = stride(from: 0, to: texts.count, by: syncEvery).map {
            texts[$0..<min($0 + syncEvery, texts.count)]
        }
        var sendError: PostgresError?
        /// How many statements each segment sent so far holds.
        var sentSegments: [Int] = []
        func send(_ segment: ArraySlice<[String?]>) {
            var statements = 0
            for values in segment where sendError == nil {
                let sent = withCStringArray(values) { pointers in
                    PQsendQueryParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
                }
                if sent == 1 { statements += 1 } else { sendError = failure(nil, code: .queryFailed, purpose: purpose) }
            }
            // Sync even after a failed send, so the statements already queued get answers.
            if PQpipelineSync(handle) == 1 {
                sentSegments.append(statements)
            } else if sendError == nil {
                sendError = failure(nil, code: .queryFailed, purpose: purpose)
            }
        }

        send(segments[0])
        for next in segments.indices.dropFirst() where sendError == nil && reader.isConnected {
            send(segments[next])
            reader.readSegment(statements: sentSegments[reader.segmentsRead])
        }
        while reader.segmentsRead < sentSegments.count && reader.isConnected {
            reader.readSegment(statements: sentSegments[reader.segmentsRead])
        }
        if reader.isConnected { _ = PQexitPipelineMode(handle) }
        if let error = reader.firstError ?? sendError { throw error }
        guard reader.results.count == texts.count else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "expected \(texts.count) results from the pipeline, got \(reader.results.count)")
        }
        return reader.results
    }
}

extension PostgresConnection {
    /// Sends `queries` as one pipeline segment — one round trip, one sync, so one
    /// implicit transaction unless a BEGIN among them opens an explicit one — and returns
    /// their results in order. One sync at a time: PgBouncer 1.18 in transaction mode may
    /// hand the server connection to another client at the first ReadyForQuery, so a
    /// second segment already in flight could land elsewhere.
    func inOneRoundTrip(_ queries: [SQLQuery], purpose: String) throws -> [PostgresResult] {
        let statements = try queries.map { try $0.prepared(purpose: purpose) }
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "cannot enter pipeline mode: \(Self.libpqMessage(handle))")
        }
        var reader = PipelineReader(connection: self, purpose: purpose)
        var sendError: PostgresError?
        var sent = 0
        for statement in statements where sendError == nil {
            let accepted = withCStringArray(statement.values) { pointers in
                PQsendQueryParams(handle, statement.sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
            }
            if accepted == 1 { sent += 1 } else { sendError = failure(nil, code: .queryFailed, purpose: purpose) }
        }
        if PQpipelineSync(handle) == 1 {
            reader.readSegment(statements: sent)
        } else if sendError == nil {
            sendError = failure(nil, code: .queryFailed, purpose: purpose)
        }
        if reader.isConnected { _ = PQexitPipelineMode(handle) }
        if let error = reader.firstError ?? sendError { throw error }
        guard reader.results.count == statements.count else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "expected \(statements.count) results, got \(reader.results.count)")
        }
        return reader.results
    }
}

/// Reads a pipeline's answers one sync segment at a time and remembers the first error.
private struct PipelineReader {
    let connection: PostgresConnection
    let purpose: String
    var results: [PostgresResult] = []
    var firstError: PostgresError?
    var segmentsRead = 0
    var isConnected = true

    init(connection: PostgresConnection, purpose: String) {
        self.connection = connection
        self.purpose = purpose
    }

    /// Consumes the results of a segment of `statements` statements up to and including
    /// its `PGRES_PIPELINE_SYNC`. libpq gives one result per statement, each followed by a
    /// NULL (skipped here). Anything else means the connection broke under the pipeline:
    /// after a server crash libpq was seen returning error results, or NULLs, for ever
    /// while the connection still looked fine — so a second NULL in a row, or more
    /// results than statements, end the segment as a lost connection instead of a hang.
    mutating func readSegment(statements: Int) {
        var answers = 0
        var nullsInARow = 0
        while isConnected {
            guard let result = PQgetResult(connection.handle) else {
                nullsInARow += 1
                if PQstatus(connection.handle) == CONNECTION_BAD || nullsInARow > 1 { noteLostConnection() }
                continue
            }
            nullsInARow = 0
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                segmentsRead += 1
                return
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                results.append(PostgresResult(handle: result, purpose: purpose))
            case PGRES_PIPELINE_ABORTED:
                // Skipped because an earlier statement of the segment failed.
                PQclear(result)
            default:
                if firstError == nil {
                    firstError = connection.failure(result, code: .queryFailed, purpose: purpose)
                }
                PQclear(result)
                if PQstatus(connection.handle) == CONNECTION_BAD { noteLostConnection() }
            }
            answers += 1
            if answers > statements { noteLostConnection() }
        }
    }

    private mutating func noteLostConnection() {
        isConnected = false
        firstError?.code = .connectionLost
        if firstError == nil {
            firstError = connection.failure(nil, code: .queryFailed, purpose: purpose)
        }
    }
}
