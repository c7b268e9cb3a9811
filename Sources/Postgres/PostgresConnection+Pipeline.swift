import CLibPQ

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
