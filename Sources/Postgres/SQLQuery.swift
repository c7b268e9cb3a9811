#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQL statement whose interpolated values are parameters (as postgres-nio's
/// `PostgresQuery`, GRDB's `SQL`):
///
/// ```swift
/// let due: SQLQuery = "SELECT user_id FROM plan_state WHERE next_check_at <= \(asOf)::timestamptz"
/// ```
///
/// Each value becomes the next parameter (`$1`, `$2`, … numbered when the statement is sent)
/// and travels apart from the SQL text, as PostgreSQL text (`PostgresParameter`; nil is
/// NULL): parameters cannot be mis-ordered and values never enter the SQL. Cast a value
/// where its type is ambiguous (`\(ids)::bigint[]`); a value used twice is two parameters.
///
/// SQL that is code, not data, goes in only by name: `\(sql: fragment)` (another query,
/// with its parameters), `\(identifier: name)` (a name the program chose, quoted) and
/// `\(unescaped: text)` (SQL the program wrote, never text from data). A bare `\(text)` of
/// a `String` is deprecated, a warning CI refuses: text may be either, so say `\(bind: text)`.
/// (COPY and scripts, which take no parameters, are text the program wrote: `copyIn`,
/// `executeScript`.)
public struct SQLQuery: ExpressibleByStringInterpolation {
    fileprivate enum Piece {
        case sql(String)
        case parameter((any PostgresParameter)?)
    }

    fileprivate var pieces: [Piece]

    /// Whether the rows come in PostgreSQL's binary format (`binaryResults()`).
    public private(set) var wantsBinaryResults = false

    public init(stringLiteral sql: String) { pieces = [.sql(sql)] }

    /// The same statement, its rows asked for in PostgreSQL's binary format: integers,
    /// booleans and timestamps then come as fixed-width values instead of text the
    /// server formats and the client parses (`PostgresRow` reads both; text columns are
    /// the same bytes either way). For large reads of columns whose types the SQL fixes.
    public func binaryResults() -> SQLQuery {
        var query = self
        query.wantsBinaryResults = true
        return query
    }

    /// libpq's `resultFormat`: 1 for binary, 0 for text.
    var resultFormat: Int32 { wantsBinaryResults ? 1 : 0 }

    public init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    /// Appends `rhs`, its parameters after those of `lhs`.
    public static func += (lhs: inout SQLQuery, rhs: SQLQuery) { lhs.pieces += rhs.pieces }

    /// The SQL text as sent, with `$1`, `$2`, … where the parameters go.
    public var sql: String { numbered().sql }

    /// The text of each parameter (nil for NULL), and the SQL with `$1`, `$2`, … in their place.
    private func numbered() -> (sql: String, values: [String?]) {
        var sql = ""
        var values: [String?] = []
        for piece in pieces {
            switch piece {
            case .sql(let text):
                sql += text
            case .parameter(let value):
                values.append(value?.postgresText)
                sql += "$\(values.count)"
            }
        }
        return (sql, values)
    }

    /// The statement as libpq takes it. Throws `.invalidParameter` for a NUL character,
    /// which PostgreSQL text cannot hold (libpq would cut the value, or the SQL, there).
    func prepared(purpose: String) throws -> (sql: String, values: [String?]) {
        let (sql, values) = numbered()
        if let position = values.firstIndex(where: { $0.map(Self.containsNUL) == true }) {
            throw PostgresError(code: .invalidParameter, purpose: purpose,
                                message: "parameter $\(position + 1) contains a NUL character")
        }
        guard !Self.containsNUL(sql) else {
            throw PostgresError(code: .invalidParameter, purpose: purpose, message: "the SQL contains a NUL character")
        }
        return (sql, values)
    }

    /// Whether `text` holds a NUL byte: memchr over the string's bytes. A batch's array
    /// parameters run to a hundred kilobytes, and `utf8.contains(0)` went byte by byte
    /// through the generic sequence path (2% of a rules-change run's client CPU).
    private static func containsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.baseAddress.map { memchr($0, 0, utf8.count) != nil } ?? false
        } ?? text.utf8.contains(0)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        public mutating func appendLiteral(_ literal: String) { pieces.append(.sql(literal)) }

        /// A value: the next parameter.
        public mutating func appendInterpolation(_ value: (some PostgresParameter)?) { pieces.append(.parameter(value)) }

        /// A value, text included: the next parameter.
        public mutating func appendInterpolation(bind value: (some PostgresParameter)?) { appendInterpolation(value) }

        @available(*, deprecated, message: "text may be a value or SQL: write \\(bind: text) for a value")
        public mutating func appendInterpolation(_ text: String?) { appendInterpolation(bind: text) }

        /// Another query's SQL and parameters, in place.
        public mutating func appendInterpolation(sql fragment: SQLQuery) { pieces += fragment.pieces }

        /// A name the program chose (a table, a role, a database), quoted as an identifier.
        public mutating func appendInterpolation(identifier name: String) {
            pieces.append(.sql("\"" + name.replacing("\"", with: "\"\"") + "\""))
        }

        /// SQL text the program wrote, as is: never text that came from data.
        public mutating func appendInterpolation(unescaped sql: String) { pieces.append(.sql(sql)) }
    }
}
