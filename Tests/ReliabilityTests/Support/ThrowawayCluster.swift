import Foundation
import Postgres
#if canImport(Glibc)
import Glibc
#endif

/// A second PostgreSQL cluster of this test's own (`deploy/pg-cluster.sh`), for tests
/// that stop the server or change how it listens: the shared test server stays untouched.
/// Stopped and deleted when the object goes away, or when the test process ends first
/// (an `ExitWatchdog`).
final class ThrowawayCluster {
    let directory: URL
    private(set) var host = ""
    private(set) var port = ""
    private let watchdog: ExitWatchdog?

    init() throws {
        // Short path: the socket path must fit in 107 bytes.
        directory = URL(fileURLWithPath: "/tmp/prr-\(UUID().uuidString.prefix(8))")
        watchdog = try? ExitWatchdog(["/bin/bash", Self.scriptPath, "stop", directory.path])
        try start()
    }

    deinit {
        watchdog?.cancel()
        _ = try? Self.script(["stop", directory.path])
    }

    /// A conninfo for `database` as `user` over the Unix socket.
    func conninfo(database: String = "postgres", user: String = "postgres") -> String {
        "host=\(host) port=\(port) dbname=\(database) user=\(user)"
    }

    func connect(database: String = "postgres") throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo(database: database))
    }

    /// Starts the server (creating the cluster the first time).
    func start() throws {
        (host, port) = try Self.hostAndPort(Self.script(["start", directory.path]))
    }

    /// PGHOST and PGPORT from the `export …` line pg-cluster.sh prints.
    static func hostAndPort(_ environment: String) throws -> (host: String, port: String) {
        var host = "", port = ""
        for assignment in environment.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "PGHOST" { host = parts[1] }
            if parts[0] == "PGPORT" { port = parts[1] }
        }
        guard !host.isEmpty, !port.isEmpty else { throw ClusterError.noEnvironment(environment) }
        return (host, port)
    }

    /// Stops the server the way `pg_ctl stop -m fast` does (SIGINT to the postmaster):
    /// every session is terminated (SQLSTATE 57P01). Returns once the server is gone.
    func stopServer() throws {
        try signalPostmaster(SIGINT)
    }

    /// Kills the server the way `pg_ctl stop -m immediate` does (SIGQUIT to the
    /// postmaster): the primary dying. Every backend quits at once without a checkpoint or
    /// a goodbye to its client (whose next statement fails: connection lost); `start()`
    /// brings it back through crash recovery. Returns once the postmaster is gone.
    func crash() throws {
        try signalPostmaster(SIGQUIT)
    }

    /// Sends `signal` to the postmaster and waits until it has exited (its pid file is
    /// gone: the postmaster is not our child, and nothing may reap it here).
    private func signalPostmaster(_ signal: Int32) throws {
        let pidFile = directory.appendingPathComponent("data/postmaster.pid")
        let text = try String(contentsOf: pidFile, encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw ClusterError.noPostmaster(pidFile.path)
        }
        kill(pid, signal)
        try waitUntil("the postmaster to exit") { !FileManager.default.fileExists(atPath: pidFile.path) }
    }

    /// deploy/pg-cluster.sh in this checkout.
    static let scriptPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/pg-cluster.sh").path

    /// Runs `deploy/pg-cluster.sh arguments…` and returns its stdout.
    ///
    /// Spawned and awaited by hand (`posix_spawn`, `waitpid`) with every descriptor above
    /// stderr closed first: the server the script starts lives on, and must not inherit
    /// descriptors that Foundation's `Process` (here or in a concurrent test) waits on.
    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let closeAndRun = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#
            + #"exec "$0" "$@" >"$OUTPUT""#
        let argv = ["/bin/bash", "-c", closeAndRun, scriptPath] + arguments
        let environment = ProcessInfo.processInfo.environment.merging(["OUTPUT": output.path]) { $1 }
            .map { "\($0.key)=\($0.value)" }
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw ClusterError.scriptFailed(arguments) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw ClusterError.scriptFailed(arguments) }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}

enum ClusterError: Error, CustomStringConvertible {
    case noEnvironment(String)
    case noPostmaster(String)
    case scriptFailed([String])

    var description: String {
        switch self {
        case .noEnvironment(let output): "deploy/pg-cluster.sh printed no PGHOST/PGPORT: \(output)"
        case .noPostmaster(let path): "no postmaster pid in \(path)"
        case .scriptFailed(let arguments): "deploy/pg-cluster.sh \(arguments.joined(separator: " ")) failed"
        }
    }
}
