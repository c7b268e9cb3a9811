import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection (`PGconn`), closed with `PQfinish` when the object goes away.
///
/// Not `Sendable` on purpose: libpq forbids using one `PGconn` from two threads at
/// once, so a connection belongs to one task at a time. Open one per worker.
///
/// Every statement is an `SQLQuery`, its values sent as parameters (`query`, `execute`,
/// `forEachRow`); results are read through `PostgresResult` / `PostgresRow` by column
/// name, and every failure is a `PostgresError` carrying the caller's `purpose`.
public final class PostgresConnection {
    /// The live `PGconn*`; never NULL and never finished before `deinit`.
    let handle: OpaquePointer

    /// Receives server NOTICE/WARNING messages (one line, without the trailing newline).
    /// When nil, notices are dropped rather than written to stderr, so they cannot
    /// interleave with the job's JSON-lines output.
    public var onNotice: ((String) -> Void)?

    /// Applied to every transaction: at BEGIN by `withTransaction`, and together with each
    /// statement sent outside one (`query`, `execute`, `forEachRow`), in the same round
    /// trip (see `TransactionSettings` for why never to the session). Empty by default.
    public var transactionSettings = TransactionSettings()

    /// Round trips to the server so far: each statement or script waited for, each
    /// pipeline sync, each COPY's start and end (connecting not included). A remote
    /// database charges its latency per round trip, so runs report them (docs/performance.md).
    public internal(set) var roundTrips = 0

    /// Statements waiting to travel ahead of the next one sent, in the same round trip:
    /// a transaction's BEGIN and settings (`withTransaction`), and nothing else.
    var deferred: [PendingStatement] = []
    /// The transaction's BEGIN is waiting in `deferred`, not yet on the server.
    var beginIsDeferred: Bool { !deferred.isEmpty }

    /// Connects from a conninfo: `key=value` pairs or a `postgresql://` URI. An empty
    /// string means "from libpq's environment" (`PGHOST`, `PGPORT`, `PGUSER`,
    /// `PGDATABASE`, `PGPASSWORD`, `PGSSLMODE`, …). Parameters the conninfo leaves out
    /// also come from that environment.
    ///
    /// - Throws: `PostgresError` with code `.connectionFailed`: one line naming
    ///   host/port/database/user and libpq's reason, never the password; also, before
    ///   libpq sees it, for a URL whose scheme is not `postgresql://` or `postgres://`.
    public init(conninfo: String) throws {
        if let scheme = ConnectionStringScheme.unsupportedScheme(in: conninfo) {
            throw ConnectionStringScheme.refusal(scheme: scheme)
        }
        // Keywords before `dbname` are defaults the conninfo may override; keywords after
        // it override the conninfo (libpq applies them in order when expand_dbname is 1).
        // A DBA sees the job in `pg_stat_activity.application_name`; an unreachable host is
        // given up after `connect_timeout` seconds (libpq counts whole seconds, at least 2).
        let settings: [(String, String)] = [
            ("application_name", "plan-regen"),
            ("connect_timeout", "10"),
            ("dbname", conninfo),
            ("client_encoding", "UTF8"),
        ]
        // libpq reads both arrays up to a terminating NULL.
        let connection = withCStringArray(settings.map(\.0) + [nil]) { keywords in
            withCStringArray(settings.map(\.1) + [nil]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else {
            // Only when libpq cannot allocate the PGconn itself.
            throw PostgresError(
                code: .connectionFailed, purpose: "connecting",
                message: "libpq could not allocate a connection (out of memory)")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let error = Self.connectFailure(connection, conninfo: conninfo)
            PQfinish(connection)
            throw error
        }
        handle = connection
        installNoticeProcessor()
    }

    /// Connects the way the job is configured in production: `DATABASE_URL` when it is
    /// set and not empty, otherwise libpq's `PG*` environment variables.
    public static func connectFromEnvironment(
        databaseURL: String? = environmentVariable("DATABASE_URL")
    ) throws -> PostgresConnection {
        try PostgresConnection(conninfo: databaseURL ?? "")
    }

    /// The value of a process environment variable, or nil when unset or empty.
    public static func environmentVariable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    deinit {
        PQfinish(handle)
    }

    /// The server version as an integer, e.g. 150018 for 15.18.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The server process id serving this connection (for `pg_stat_activity`,
    /// `pg_terminate_backend`, and log correlation).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// False once the connection is broken (server gone, backend terminated).
    public var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// True between BEGIN and COMMIT/ROLLBACK (also in a failed transaction block).
    public var isInTransaction: Bool {
        if beginIsDeferred { return true }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The host (or socket directory) actually connected to.
    public var host: String { Self.text(PQhost(handle)) }
    /// The port actually connected to.
    public var port: String { Self.text(PQport(handle)) }
    /// The database name actually connected to.
    public var database: String { Self.text(PQdb(handle)) }
    /// The role actually connected as.
    public var user: String { Self.text(PQuser(handle)) }

    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// libpq's last error message on this connection, folded to one line.
    static func libpqMessage(_ connection: OpaquePointer) -> String {
        PostgresError.oneLine(text(PQerrorMessage(connection)))
    }

    /// The error for a connection that did not reach CONNECTION_OK: the target it tried
    /// and libpq's reason, with every form of the password removed.
    private static func connectFailure(_ connection: OpaquePointer, conninfo: String) -> PostgresError {
        let target = [
            ("host", text(PQhost(connection))),
            ("port", text(PQport(connection))),
            ("dbname", text(PQdb(connection))),
            ("user", text(PQuser(connection))),
        ]
        .filter { !$0.1.isEmpty }
        .map { "\($0.0)=\($0.1)" }
        .joined(separator: " ")
        let reason = libpqMessage(connection)
        let line = target.isEmpty ? reason : "\(target): \(reason)"
        var secrets = PasswordRedaction.passwords(inConninfo: conninfo)
        secrets.append(text(PQpass(connection)))
        return PostgresError(
            code: .connectionFailed, purpose: "connecting",
            message: PasswordRedaction.redact(line, secrets: secrets))
    }

    private func installNoticeProcessor() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The processor runs on this thread inside libpq calls made through `handle`,
        // which `deinit` finishes before `self` is freed, so the unretained pointer is valid.
        PQsetNoticeProcessor(handle, { context, message in
            guard let context, let message else { return }
            let connection = Unmanaged<PostgresConnection>.fromOpaque(context).takeUnretainedValue()
            connection.onNotice?(PostgresError.oneLine(String(cString: message)))
        }, context)
    }
}
