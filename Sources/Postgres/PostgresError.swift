/// The one error type of the Postgres layer.
///
/// It keeps what the server said (SQLSTATE, message, detail, hint) as separate fields,
/// so callers can branch on `sqlState == .undefinedTable` and a person reading the log sees
/// which query failed (`purpose`) and what to do about it (`description`).
public struct PostgresError: Error, CustomStringConvertible, Hashable, Sendable {
    /// What kind of failure this is. New codes can be added without breaking callers
    /// that switch over the ones they care about (the cases live in a private enum).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case connectionFailed
            case connectionLost
            case queryFailed
            case copyFailed
            case unexpectedResult
            case decodingFailed
            case invalidParameter
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The connection could not be opened (wrong host, port, credentials, or URL).
        public static let connectionFailed = Code(.connectionFailed)
        /// The database went away: the server stopped, the backend was terminated
        /// (SQLSTATE 57P01 and friends, class 08), or libpq reports the connection bad.
        public static let connectionLost = Code(.connectionLost)
        /// The server rejected a statement; see `sqlState`.
        public static let queryFailed = Code(.queryFailed)
        /// A `COPY … FROM STDIN` failed on the server or while sending data.
        public static let copyFailed = Code(.copyFailed)
        /// The server answered with something the caller did not ask for
        /// (rows from a statement, no rows where one was expected, …).
        public static let unexpectedResult = Code(.unexpectedResult)
        /// A value could not be read as the requested Swift type (or was NULL).
        public static let decodingFailed = Code(.decodingFailed)
        /// A value cannot be sent to PostgreSQL at all (a NUL character in text).
        public static let invalidParameter = Code(.invalidParameter)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What the caller was doing, e.g. "reading changed user_settings".
    public var purpose: String
    /// The server's primary message, or libpq's / this layer's when the server said nothing.
    public var message: String
    /// The five-character SQLSTATE (`PG_DIAG_SQLSTATE`), when the server sent one.
    public var sqlState: SQLState?
    /// The server's DETAIL line, e.g. "Key (id)=(1) already exists."
    public var detail: String?
    /// The server's HINT line.
    public var hint: String?

    public init(
        code: Code,
        purpose: String,
        message: String,
        sqlState: SQLState? = nil,
        detail: String? = nil,
        hint: String? = nil
    ) {
        self.code = code
        self.purpose = purpose
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
    }

    /// True when retrying on a new connection might help: the database went away.
    public var isConnectionLost: Bool { code == .connectionLost }

    /// One line a person can act on: what failed, while doing what, the server's words,
    /// and the next step.
    public var description: String {
        var line: String
        switch code {
        case .connectionFailed:
            line = "cannot connect to PostgreSQL: \(message)"
        case .connectionLost:
            line = "database went away while \(purpose): \(message)"
        case .decodingFailed:
            line = "unexpected value from PostgreSQL while \(purpose): \(message)"
        case .invalidParameter:
            line = "cannot send a value to PostgreSQL while \(purpose): \(message)"
        case .unexpectedResult:
            line = "unexpected result from PostgreSQL while \(purpose): \(message)"
        default:
            line = "PostgreSQL error while \(purpose): \(message)"
        }
        if let sqlState { line += " (SQLSTATE \(sqlState))" }
        if let detail { line += "; detail: \(detail)" }
        if let hint { line += "; hint: \(hint)" }
        switch code {
        case .connectionFailed where message.contains("root certificate file"):
            // libpq 15 looks for ~/.postgresql/root.crt when sslrootcert is not set.
            line += "; sslmode=verify-full and verify-ca need the CA that signed the server's certificate: "
                + "add sslrootcert=FILE to DATABASE_URL (or set PGSSLROOTCERT), "
                + "/etc/ssl/certs/ca-certificates.crt for a public CA, else your provider's CA file"
        case .connectionFailed:
            line += "; check DATABASE_URL or PGHOST/PGPORT/PGUSER/PGDATABASE and that the server is running"
        case .connectionLost:
            line += "; check that PostgreSQL is running and reachable, then run the job again"
        default:
            break
        }
        switch sqlState {
        case .lockNotAvailable:
            line += "; another session held a lock this needs for longer than lock_timeout: "
                + "find it in pg_locks and pg_stat_activity, or allow a longer lock timeout"
        case .queryCanceled:
            line += "; the statement was cancelled (statement_timeout reached or pg_cancel_backend): "
                + "allow a longer statement timeout if the data grew"
        default:
            break
        }
        return line
    }
}

extension PostgresError {
    /// SQLSTATEs meaning the server ended the session: admin_shutdown (pg_terminate_backend,
    /// fast shutdown), crash_shutdown, cannot_connect_now, and class 08.
    static func isConnectionLossState(_ sqlState: SQLState?) -> Bool {
        switch sqlState {
        case .adminShutdown, .crashShutdown, .cannotConnectNow, .connectionException: true
        default: false
        }
    }

    /// libpq messages span several lines ("…failed: …\n\tIs the server running…"):
    /// fold them into one so a log line stays one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isNewline || $0 == "\t" })
            .map { $0.trimmingSpaces() }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
