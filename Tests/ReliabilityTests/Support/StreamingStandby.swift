import Foundation
import Postgres
#if canImport(Glibc)
import Glibc
#endif

/// A streaming hot standby of a `ThrowawayCluster`, for tests of a job pointed at a
/// read-only server, at a replica that lags, or at a primary that died and a standby
/// promoted in its place.
///
/// Made with `pg_basebackup -R -X stream -c fast` from the primary (which needs nothing
/// more: `wal_level = replica`, `max_wal_senders = 10` and local replication trust are
/// initdb's defaults), in a short directory of its own under /tmp, and started as a
/// pg-cluster.sh cluster (socket only, its own port; `deploy/pg-cluster.sh stop` removes
/// it). Stopped and deleted when the object goes away, or when the test process ends
/// first (an `ExitWatchdog`).
///
/// ```swift
/// let primary = try ThrowawayCluster()
/// let standby = try StreamingStandby(primary: primary)
/// try primary.connect().execute("INSERT …", purpose: "…")
/// try standby.waitForReplay()          // the standby now shows the row
/// try primary.crash()
/// try standby.promote()                // and takes writes
/// ```
final class StreamingStandby {
    let directory: URL
    /// The primary's conninfo (as postgres, maintenance database) for `waitForReplay`.
    let primaryConninfo: String
    private(set) var host = ""
    private(set) var port = ""
    private var watchdog: ExitWatchdog?

    /// Copies `primary` and starts the copy as its standby; returns once the standby
    /// accepts connections and is in recovery.
    init(primary: ThrowawayCluster) throws {
        let basebackup = try RequiredComponent.pgBasebackup.path()
        _ = try RequiredComponent.pgCtl.path()
        primaryConninfo = primary.conninfo()
        // Short path: the socket path must fit in 107 bytes.
        directory = URL(fileURLWithPath: "/tmp/prs-\(UUID().uuidString.prefix(8).lowercased())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            try Subprocess.giveToServerOwner(directory.path)
            guard chmod(directory.path, 0o700) == 0 else { throw StandbyError.setupFailed("chmod \(directory.path)") }
            // pg-cluster.sh manages (starts, stops, deletes) only directories with its marker.
            let marker = directory.appendingPathComponent(".plan-regen-pg-cluster")
            _ = FileManager.default.createFile(atPath: marker.path, contents: nil)
            try Subprocess.giveToServerOwner(marker.path)
            // Should the test process end first, the standby goes too.
            watchdog = try ExitWatchdog(["/bin/bash", ThrowawayCluster.scriptPath, "stop", directory.path])

            let data = directory.appendingPathComponent("data")
            try Subprocess.check(Subprocess.asServerOwner([
                basebackup, "-h", primary.host, "-p", primary.port, "-U", "postgres", "-D", data.path,
                "-R", "-X", "stream", "-c", "fast", "--no-sync",
            ]))
            // The copied postgresql.conf names the primary's port and socket directory;
            // later lines win.
            let port = String(Int.random(in: 20000..<30000))
            let settings = """

                # StreamingStandby: a hot standby of \(primary.host), socket only.
                listen_addresses = ''
                unix_socket_directories = '\(directory.path)'
                port = \(port)
                hot_standby = on

                """
            let configuration = try FileHandle(forWritingTo: data.appendingPathComponent("postgresql.conf"))
            try configuration.seekToEnd()
            try configuration.write(contentsOf: Data(settings.utf8))
            try configuration.close()

            (host, self.port) = try ThrowawayCluster.hostAndPort(ThrowawayCluster.script(["start", directory.path, port]))
            try waitUntil("the standby to accept connections in recovery", limitSeconds: 60) {
                (try? isInRecovery()) == true
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit {
        remove()
    }

    /// A conninfo for `database` as `user` over the standby's Unix socket.
    func conninfo(database: String = "postgres", user: String = "postgres") -> String {
        "host=\(host) port=\(port) dbname=\(database) user=\(user)"
    }

    func connect(database: String = "postgres") throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo(database: database))
    }

    /// `pg_is_in_recovery()` on the standby: true until promoted.
    func isInRecovery() throws -> Bool {
        try connect().query("SELECT pg_is_in_recovery()", purpose: "asking the standby whether it is in recovery")
            .singleRow().bool(0)
    }

    /// Waits until the standby has replayed all WAL the primary has written so far (every
    /// transaction committed on the primary before the call is visible on the standby).
    /// A condition wait: polls the standby's replay position, failing after `limitSeconds`.
    func waitForReplay(limitSeconds: Double = 30) throws {
        // The insert position, not pg_current_wal_lsn(): with synchronous_commit = off a
        // commit record may not be written yet. At a page boundary the insert position
        // points past the next page's header, where no record ends: step back over it.
        let target = try PostgresConnection(conninfo: primaryConninfo).query(
            """
            SELECT (CASE WHEN (l - '0/0'::pg_lsn) % 16777216 = 40 THEN l - 40
                         WHEN (l - '0/0'::pg_lsn) % 8192 = 24 THEN l - 24
                         ELSE l END)::text
            FROM pg_current_wal_insert_lsn() AS l
            """, purpose: "reading the primary's WAL position").singleRow().string(0)
        let standby = try connect()
        try waitUntil("the standby to replay the primary's WAL up to \(target)", limitSeconds: limitSeconds) {
            try standby.query(
                "SELECT coalesce(pg_last_wal_replay_lsn() >= \(bind: target)::pg_lsn, false)",
                purpose: "reading the standby's replay position").singleRow().bool(0)
        }
    }

    /// Promotes the standby (`pg_ctl promote -w`); returns once it is out of recovery and
    /// takes writes.
    func promote() throws {
        let pgCtl = try RequiredComponent.pgCtl.path()
        try Subprocess.check(Subprocess.asServerOwner([
            pgCtl, "-D", directory.appendingPathComponent("data").path, "promote", "-w", "-t", "60",
        ]))
        try waitUntil("the promoted standby to leave recovery", limitSeconds: 60) { try !isInRecovery() }
    }

    private func remove() {
        watchdog?.cancel()
        watchdog = nil
        _ = try? ThrowawayCluster.script(["stop", directory.path])
        // pg-cluster.sh refuses a directory without its marker (a failure before it was made).
        if FileManager.default.fileExists(atPath: directory.path),
           !FileManager.default.fileExists(atPath: directory.appendingPathComponent(".plan-regen-pg-cluster").path) {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

enum StandbyError: Error, CustomStringConvertible {
    case setupFailed(String)

    var description: String {
        switch self {
        case .setupFailed(let what): "could not set up the standby: \(what)"
        }
    }
}
