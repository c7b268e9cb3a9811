import Foundation
import Postgres
#if canImport(Glibc)
import Glibc
#endif

/// A real PgBouncer in front of a PostgreSQL server, for tests of what the job does
/// behind a connection pooler.
///
/// It listens on 127.0.0.1 on a private port (and on a Unix socket in its own directory),
/// runs as the `postgres` user when the tests run as root, and is configured as a pooler
/// is in production: `pool_mode` session or transaction, `default_pool_size` (2 unless
/// told), `max_client_conn = 200`, one wildcard database entry (`* = host=… port=…`, so
/// every test database goes through it), `auth_type = trust` with an auth file listing
/// the users (`addUser` for roles made during a test), `server_idle_timeout` left at its
/// default (600 s), and `ignore_startup_parameters = extra_float_digits` — not `options`,
/// which PgBouncer 1.18 refuses and the job must not rely on.
///
/// The pooler is a child of the test process. It stops when the object goes away
/// (`deinit`), on `stop()`, and when the test process ends in any way (an `ExitWatchdog`
/// SIGTERMs it and removes its directory). Swift may release an object after its last use, so keep it alive for as
/// long as connections go through it (`defer { bouncer.stop() }` does both):
///
/// ```swift
/// let bouncer = try PgBouncer(server: host, port: port, poolMode: .transaction, users: [role])
/// defer { bouncer.stop() }
/// let connection = try PostgresConnection(conninfo: bouncer.conninfo(database: name, user: role))
/// ```
final class PgBouncer {
    enum PoolMode: String, Sendable {
        /// A server connection per client for the client's whole session.
        case session
        /// A server connection per transaction: consecutive statements of one client may
        /// run on different server connections, and session state stays behind on them.
        case transaction
    }

    /// The server (socket directory or host) and port every database entry points at.
    let serverHost: String
    let serverPort: String
    let poolMode: PoolMode
    let poolSize: Int
    /// Where the config, auth file, log, pid file and Unix socket live.
    let directory: URL
    /// The TCP port on 127.0.0.1 (kept across `restart()`).
    private(set) var port: Int
    /// The users the auth file lists (always `postgres`, the admin console's user).
    private(set) var users: [String]
    private let settings: [(String, String)]
    private var pid: pid_t = 0
    private var watchdog: ExitWatchdog?

    /// Starts PgBouncer in front of the server at `host` (a socket directory or address)
    /// and `port`, letting `users` log in (plus `postgres`). `settings` are extra
    /// `[pgbouncer]` lines (e.g. `["server_login_retry": "1"]`), written after the defaults
    /// (PgBouncer takes the last value of a repeated key, so they override them).
    init(
        server host: String, port serverPort: String, poolMode: PoolMode, poolSize: Int = 2,
        users: [String] = [], settings: [String: String] = [:]
    ) throws {
        _ = try RequiredComponent.pgbouncer.path()
        precondition(!host.contains(where: \.isWhitespace) && !host.contains("'"), "server host \(host) needs quoting")
        serverHost = host
        self.serverPort = serverPort
        self.poolMode = poolMode
        self.poolSize = poolSize
        self.users = ["postgres"] + users.filter { $0 != "postgres" }
        self.settings = settings.sorted { $0.key < $1.key }
        // Short: the Unix socket path must fit in 107 bytes.
        directory = URL(fileURLWithPath: "/tmp/pgb-\(UUID().uuidString.prefix(8).lowercased())")
        port = 0
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        do {
            try Subprocess.giveToServerOwner(directory.path)
            guard chmod(directory.path, 0o700) == 0 else { throw PgBouncerError.setupFailed("chmod \(directory.path)") }
            try writeAuthFile()
            // A free port can be taken between the check and PgBouncer's bind: try others.
            var attempt = 0
            while true {
                attempt += 1
                port = try Self.freePort()
                try writeConfig()
                do {
                    try start()
                    break
                } catch let error as PgBouncerError where attempt < 5 {
                    if case .exited = error { continue }
                    throw error
                }
            }
        } catch {
            stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A key=value conninfo reaching `database` as `user` through the pooler over TCP.
    func conninfo(database: String, user: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) dbname=\(Self.quoted(database)) user=\(Self.quoted(user))"
    }

    /// The same as a `postgresql://` URL.
    func url(database: String, user: String = "postgres") -> String {
        "postgresql://\(user.uriEncoded)@127.0.0.1:\(port)/\(database.uriEncoded)"
    }

    /// The Unix socket directory PgBouncer also listens in (`host=` of a socket conninfo).
    var socketDirectory: String { directory.path }

    func connect(database: String, user: String = "postgres") throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo(database: database, user: user))
    }

    var isRunning: Bool { pid != 0 }

    /// Lets `user` log in: rewrites the auth file and has PgBouncer reload it (the admin
    /// console's RELOAD, which answers once the file is read: the user can log in as soon
    /// as this returns). The role itself must exist on the server.
    func addUser(_ user: String) throws {
        guard !users.contains(user) else { return }
        users.append(user)
        try writeAuthFile()
        if isRunning { _ = try admin("RELOAD") }
    }

    /// Starts PgBouncer on `port` (after `stop()`); returns once it accepts connections.
    func start() throws {
        guard !isRunning else { return }
        let executable = try RequiredComponent.pgbouncer.path()
        // In the foreground PgBouncer logs to stderr (no logfile setting: it would log twice).
        let log = logURL.path
        pid = try Subprocess.spawn(
            Subprocess.asServerOwner([executable, configURL.path]), stdout: log, stderr: log)
        try startWatchdog(for: pid)
        let deadline = Date().addingTimeInterval(15)
        while true {
            if Subprocess.reap(pid) != nil {
                pid = 0
                stopWatchdog()
                throw PgBouncerError.exited(logTail)
            }
            if Self.acceptsConnections(port: port) { return }
            guard Date() < deadline else {
                stop()
                throw PgBouncerError.notListening(port, logTail)
            }
            usleep(2000)
        }
    }

    /// Stops PgBouncer at once (SIGTERM: PgBouncer's immediate shutdown), closing every
    /// client and server connection; returns once the process is gone. Safe to repeat.
    func stop() {
        // The watchdog first: it must never signal a pid this object has already reaped.
        stopWatchdog()
        guard pid != 0 else { return }
        Subprocess.stop(pid, signal: SIGTERM)
        pid = 0
    }

    /// A pooler restart: stops PgBouncer (every client and server connection is dropped)
    /// and starts it again on the same port.
    func restart() throws {
        stop()
        try start()
    }

    /// Runs a command on the admin console (`SHOW POOLS`, `SHOW SERVERS`, `SHOW CLIENTS`,
    /// `RELOAD`, …) through `psql`: the console speaks only the simple query protocol.
    /// Returns the rows as column name → text value.
    func admin(_ command: String) throws -> [[String: String]] {
        let psql = try RequiredComponent.psql.path()
        let separator = "\u{1F}"
        let result = try Subprocess.run(
            [psql, "-X", "-A", "-q", "-F", separator, "-P", "footer=off", "-v", "ON_ERROR_STOP=1",
             "-d", conninfo(database: "pgbouncer", user: "postgres") + " connect_timeout=10", "-c", command],
            limitSeconds: 30)
        guard result.status == 0 else {
            throw PgBouncerError.adminFailed(command, result.stderr + result.stdout)
        }
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.split(separator: Character(separator), omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { fields in
            Dictionary(zip(header, fields).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// PgBouncer's log so far (across restarts).
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    private var logURL: URL { directory.appendingPathComponent("pgbouncer.log") }

    private var logTail: String { String(log.suffix(3000)) }

    private var configURL: URL { directory.appendingPathComponent("pgbouncer.ini") }

    private func writeConfig() throws {
        var lines = [
            "[databases]",
            "* = host=\(serverHost) port=\(serverPort)",
            "",
            "[pgbouncer]",
            "listen_addr = 127.0.0.1",
            "listen_port = \(port)",
            "unix_socket_dir = \(directory.path)",
            "auth_type = trust",
            "auth_file = \(directory.appendingPathComponent("users.txt").path)",
            "admin_users = postgres",
            "pool_mode = \(poolMode.rawValue)",
            "default_pool_size = \(poolSize)",
            "max_client_conn = 200",
            "ignore_startup_parameters = extra_float_digits",
            "pidfile = \(directory.appendingPathComponent("pgbouncer.pid").path)",
        ]
        lines += settings.map { "\($0.0) = \($0.1)" }
        try write(lines.joined(separator: "\n") + "\n", to: configURL)
    }

    /// `"user" ""` per user: trust authentication still wants each user listed.
    private func writeAuthFile() throws {
        let lines = users.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\" \"\"" }
        try write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("users.txt"))
    }

    /// Writes atomically (PgBouncer may read the file at any time) and readably for postgres.
    private func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
        try Subprocess.giveToServerOwner(url.path)
    }

    /// Should the test process end with PgBouncer running: SIGTERM it, wait for it to go
    /// (it removes its pid file) and remove the directory.
    private func startWatchdog(for pid: pid_t) throws {
        watchdog = try ExitWatchdog([
            "/bin/sh", "-c",
            #"kill -TERM "$0"; i=0; while [ -e "$1/pgbouncer.pid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; rm -rf -- "$1""#,
            String(pid), directory.path,
        ])
    }

    private func stopWatchdog() {
        watchdog?.cancel()
        watchdog = nil
    }

    /// A port in 10000–19999 (below the ephemeral range, so no outgoing connection holds
    /// it when a restart binds it again) that nothing listens on now.
    static func freePort() throws -> Int {
        for _ in 0..<200 {
            let candidate = Int.random(in: 10000..<20000)
            if canBind(port: candidate) { return candidate }
        }
        throw PgBouncerError.setupFailed("no free port in 10000-19999")
    }

    private static func canBind(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    private static func quoted(_ value: String) -> String {
        var quoted = "'"
        for character in value {
            if character == "\\" || character == "'" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }
}

enum PgBouncerError: Error, CustomStringConvertible {
    case setupFailed(String)
    case exited(String)
    case notListening(Int, String)
    case adminFailed(String, String)

    var description: String {
        switch self {
        case .setupFailed(let what): "could not set up pgbouncer: \(what)"
        case .exited(let log): "pgbouncer exited at start; its log:\n\(log)"
        case .notListening(let port, let log): "pgbouncer does not accept connections on 127.0.0.1:\(port); its log:\n\(log)"
        case .adminFailed(let command, let output): "pgbouncer admin console: \(command) failed: \(output)"
        }
    }
}
