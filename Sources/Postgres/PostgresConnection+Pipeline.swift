import CLibPQ

/// A statement waiting to be sent, with what it is for (errors name it).
struct PendingStatement {
    var query: SQLQuery
    var purpose: String
}

/// The results of `pipelined`, taken in the order the statements were sent, each by what
/// its statement is for: a result missing (a statement left out of the pipeline) throws,
/// naming the statement, where an index would trap.
public struct PipelinedResults {
    private var remaining: ArraySlice<PostgresResult>

    public init(_ results: [PostgresResult]) { remaining = results[...] }

    /// The next statement's result; `purpose` names that statement.
    public mutating func next(_ purpose: String) throws -> PostgresResult {
        guard let result = remaining.popFirst() else {
            throw PostgresError(code: .unexpectedResult, purpose: purpose, message: "the pipeline returned no result for it")
        }
        return result
    }
}

extension PostgresConnection {
    /// Runs `statements` in one round trip (one pipeline segment, after any statement the
    /// open transaction deferred, such as its BEGIN) and returns their results in order.
    /// Outside a transaction they share one implicit transaction: the first error rolls
    /// them all back. For a remote database, where every round trip costs its latency.
    ///
    /// - Throws: the first failing statement's `PostgresError`, naming its purpose.
    public func pipelined(_ statements: [(query: SQLQuery, purpose: String)]) throws -> [PostgresResult] {
        let pending = statements.map { PendingStatement(query: $0.query, purpose: $0.purpose) }
        let ahead = takeDeferred()
        if ahead.isEmpty, needsSettingsWithStatement {
            return Array(try inOneRoundTrip([transactionSettingsStatement] + pending).dropFirst())
        }
        return Array(try inOneRoundTrip(ahead + pending).dropFirst(ahead.count))
    }

    /// The deferred statements, which the caller now sends; the BEGIN among them is then
    /// on its way to the server.
    func takeDeferred() -> [PendingStatement] {
        defer { deferred = [] }
        return deferred
    }

    /// Sends the deferred statements on their own, before something that cannot share
    /// a round trip with them (COPY, single-row mode, a script).
    func sendDeferred() throws {
        let ahead = takeDeferred()
        if !ahead.isEmpty { _ = try inOneRoundTrip(ahead) }
    }

    var transactionSettingsStatement: PendingStatement {
        PendingStatement(query: transactionSettings.statement, purpose: "applying the transaction settings")
    }

    /// Sends `queries` as one pipeline segment — one round trip, one sync, so one
    /// implicit transaction unless a BEGIN among them opens an explicit one — and returns
    /// their results in order. One sync at a time: PgBouncer 1.18 in transaction mode may
    /// hand the server connection to another client at the first ReadyForQuery, so a
    /// second segment already in flight could land elsewhere.
    func inOneRoundTrip(_ queries: [PendingStatement]) throws -> [PostgresResult] {
        let purpose = queries.last?.purpose ?? "sending statements"
        let statements = try queries.map { try $0.query.prepared(purpose: $0.purpose) }
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "cannot enter pipeline mode: \(Self.libpqMessage(handle))")
        }
        var reader = PipelineReader(connection: self, purpose: purpose)
        reader.statementPurposes = queries.map(\.purpose)
        var sendError: PostgresError?
        var sent = 0
        for (statement, query) in zip(statements, queries) where sendError == nil {
            let accepted = withCStringArray(statement.values) { pointers in
                PQsendQueryParams(handle, statement.sql, Int32(pointers.count), nil, pointers, nil, nil,
                                  query.query.resultFormat)
            }
            if accepted == 1 { sent += 1 } else { sendError = failure(nil, code: .queryFailed, purpose: purpose) }
        }
        roundTrips += 1
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
    /// The purpose of each statement, when they differ: an error names its statement's.
    var statementPurposes: [String]?

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
                    let failed = statementPurposes.flatMap { results.count < $0.count ? $0[results.count] : nil }
                    firstError = connection.failure(result, code: .queryFailed, purpose: failed ?? purpose)
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
        // A lost connection is the segment's failure, not its first statement's.
        firstError?.purpose = purpose
        if firstError == nil {
            firstError = connection.failure(nil, code: .queryFailed, purpose: purpose)
        }
    }
}
