import CLibPQ

extension PostgresConnection {
    /// The `PostgresError` for a failed or missing result: the server's fields when it
    /// sent an error, libpq's message otherwise. Any sign that the session ended turns
    /// the code into `.connectionLost`, so callers can tell "database went away".
    func failure(_ result: OpaquePointer?, code: PostgresError.Code, purpose: String) -> PostgresError {
        func field(_ name: Character) -> String? {
            guard let result, let ascii = name.asciiValue,
                  let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            let text = PostgresError.oneLine(String(cString: value))
            return text.isEmpty ? nil : text
        }
        // Field codes from postgres_ext.h: C = SQLSTATE, M = primary message, D = detail, H = hint.
        let sqlState = field("C").map { PostgresError.SQLState($0) }
        var message = field("M")
            ?? result.map { PostgresError.oneLine(String(cString: PQresultErrorMessage($0))) }
            ?? ""
        if message.isEmpty { message = Self.libpqMessage(handle) }
        if message.isEmpty { message = "no error message from libpq" }
        // An error libpq made itself (no SQLSTATE) may be a connection that broke while libpq
        // still reports it fine (seen in pipeline mode after a server crash): reading from
        // it says so.
        let lost = PQstatus(handle) == CONNECTION_BAD || PostgresError.isConnectionLossState(sqlState)
            || (sqlState == nil && PQconsumeInput(handle) == 0)
        return PostgresError(
            code: lost ? .connectionLost : code, purpose: purpose, message: message,
            sqlState: sqlState, detail: field("D"), hint: field("H"))
    }
}
