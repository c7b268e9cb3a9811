import Postgres

/// A fresh, empty database for one test, on the server `deploy/test.sh` starts.
///
/// Tests run in parallel, so each gets its own database (`t_` + 16 random hex digits)
/// and nothing is shared between them:
///
/// ```swift
/// @Test func writesAPlan() throws {
///     try TestDatabase.withFresh { database in
///         let connection = try database.connect()
///         …
///     }
/// }
/// ```
public struct TestDatabase: Sendable {
    /// The database's name, made only of `t_` and lowercase hex digits.
    public let name: String
    /// A key=value conninfo for this database, usable as `DATABASE_URL` too.
    public let conninfo: String

    /// Creates a database, runs `body` with it, and drops it afterwards (also when
    /// `body` throws).
    public static func withFresh<Result>(_ body: (TestDatabase) throws -> Result) throws -> Result {
        let database = try create()
        let value: Result
        do {
            value = try body(database)
        } catch {
            try? database.drop()
            throw error
        }
        try database.drop()
        return value
    }

    /// The async form of `withFresh`, for tests of async code.
    public static func withFresh<Result>(
        _ body: (TestDatabase) async throws -> Result
    ) async throws -> Result {
        let database = try create()
        let value: Result
        do {
            value = try await body(database)
        } catch {
            try? database.drop()
            throw error
        }
        try database.drop()
        return value
    }

    /// Opens a new connection to this database.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo)
    }

    /// Creates a uniquely named database and returns it; pair with `drop()`.
    public static func create() throws -> TestDatabase {
        let admin = try adminConnection()
        var random = SystemRandomNumberGenerator()
        let suffix = (0..<16).map { _ in String(random.next(upperBound: UInt8(16)), radix: 16) }.joined()
        let name = "t_\(suffix)"
        try admin.execute(
            "CREATE DATABASE \(identifier: name)",
            purpose: "creating test database \(name)")
        let conninfo = [
            ("host", admin.host), ("port", admin.port), ("user", admin.user), ("dbname", name),
        ]
        .filter { !$0.1.isEmpty }
        .map { "\($0.0)=\(quotedConninfoValue($0.1))" }
        .joined(separator: " ")
        return TestDatabase(name: name, conninfo: conninfo)
    }

    /// Drops the database, disconnecting any session still using it.
    public func drop() throws {
        let admin = try Self.adminConnection()
        try admin.execute(
            "DROP DATABASE IF EXISTS \(identifier: name) WITH (FORCE)",
            purpose: "dropping test database \(name)")
    }

    /// A connection to the server's maintenance database, from the environment.
    public static func adminConnection() throws -> PostgresConnection {
        guard PostgresConnection.environmentVariable("DATABASE_URL") != nil
                || PostgresConnection.environmentVariable("PGHOST") != nil
                || PostgresConnection.environmentVariable("PGPORT") != nil else {
            throw TestDatabaseError.notConfigured
        }
        return try PostgresConnection.connectFromEnvironment()
    }

    /// `'value'` with `\` and `'` escaped, as libpq's key=value syntax wants.
    private static func quotedConninfoValue(_ value: String) -> String {
        var quoted = "'"
        for character in value {
            if character == "\\" || character == "'" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }
}

/// Why a database test cannot run.
public enum TestDatabaseError: Error, CustomStringConvertible {
    case notConfigured

    public var description: String {
        switch self {
        case .notConfigured:
            "no PostgreSQL server configured for tests (neither DATABASE_URL nor PGHOST/PGPORT is set): "
                + "run the tests through deploy/test.sh, which starts a throwaway server"
        }
    }
}
