import Foundation
import Postgres
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real-component infrastructure works — PgBouncer in front of a server, a streaming
/// standby, a primary that crashes — and PgBouncer 1.18 behaves the way the job's design
/// assumes: in transaction mode a client's statements move between server connections and
/// session state (an advisory lock) stays behind on them; a client that dies inside a
/// transaction has its server connection closed; a pooler restart drops every connection.
@Suite struct PoolerInfrastructureTests {
    // MARK: Transaction pooling

    /// Pool of 2: while A holds one server connection in a transaction, B's statement runs
    /// on the other; once D holds that one and A has committed, B's next statement runs on
    /// A's former connection. One client, two server backends.
    @Test(.requires(.pgbouncer, .psql)) func transactionPoolingRunsAClientsStatementsOnDifferentBackends() throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .transaction, poolSize: 2)
            defer { bouncer.stop() }
            // The job's role is made for this test: the pooler learns it by a reload.
            try bouncer.addUser(db.jobRole)
            let database = db.database.name
            let a = try bouncer.connect(database: database, user: db.jobRole)
            let b = try bouncer.connect(database: database, user: db.jobRole)
            let d = try bouncer.connect(database: database, user: db.jobRole)

            try a.execute("BEGIN", purpose: "A opening a transaction")
            let backendOfA = try Self.backendPID(a)
            let firstOfB = try Self.backendPID(b)
            #expect(firstOfB != backendOfA, "B ran while A held its server connection")

            try d.execute("BEGIN", purpose: "D opening a transaction")
            #expect(try Self.backendPID(d) == firstOfB, "D took the only idle server connection")
            let pool = try #require(try bouncer.admin("SHOW POOLS").first { $0["database"] == database })
            #expect(pool["sv_active"] == "2" && pool["pool_mode"] == "transaction", "\(pool)")

            try a.execute("COMMIT", purpose: "A committing")
            let secondOfB = try Self.backendPID(b)
            #expect(secondOfB == backendOfA, "B's next statement ran on A's former server connection")
            #expect(secondOfB != firstOfB)
            try d.execute("COMMIT", purpose: "D committing")

            let servers = try bouncer.admin("SHOW SERVERS").filter { $0["database"] == database }
            #expect(Set(servers.compactMap { $0["remote_pid"] }) == [String(backendOfA), String(firstOfB)], "\(servers)")
        }
    }

    /// The bug class the job must avoid: a session-level advisory lock taken through a
    /// transaction pooler belongs to the server connection, which outlives the client. It
    /// is still held after the client has disconnected, until the pooler closes that
    /// server connection (here: the pooler stops; in production: server_idle_timeout).
    @Test(.requires(.pgbouncer, .psql)) func aSessionLockTakenThroughTransactionPoolingOutlivesTheClient() throws {
        try TestDatabase.withFresh { database in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .transaction)
            defer { bouncer.stop() }
            var client: PostgresConnection? = try bouncer.connect(database: database.name)
            let backend = try #require(client).query(
                "SELECT pg_backend_pid() FROM pg_advisory_lock(4242)",
                purpose: "taking a session lock through the pooler"
            ).singleRow().int32(0)
            client = nil
            try waitUntil("pgbouncer to see the client go", limitSeconds: 10) {
                try bouncer.admin("SHOW CLIENTS").allSatisfy { $0["database"] != database.name }
            }

            let direct = try database.connect()
            #expect(try Self.advisoryLockHolders(4242, on: direct) == [backend], "the lock stays with the server connection")
            #expect(try direct.query("SELECT pg_try_advisory_lock(4242)", purpose: "trying the lock").singleRow().bool(0) == false)

            bouncer.stop()
            try waitUntil("the lock to go with the pooler's server connection", limitSeconds: 10) {
                try Self.advisoryLockHolders(4242, on: direct).isEmpty
            }
        }
    }

    /// A client SIGKILLed while idle inside a transaction through the pooler: PgBouncer
    /// closes the server connection ("client disconnect while server was not ready"), the
    /// backend ends and its transaction-level lock is free within moments.
    @Test(.requires(.pgbouncer, .psql)) func aClientKilledIdleInATransactionHasItsServerConnectionClosedAtOnce() throws {
        try TestDatabase.withFresh { database in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .transaction)
            defer { bouncer.stop() }
            let direct = try database.connect()
            let client = try PsqlClient(conninfo: bouncer.conninfo(database: database.name))
            defer { client.kill() }
            try client.send("BEGIN; SELECT pg_advisory_xact_lock(17);")
            var backend: Int32 = 0
            try waitUntil("the client to hold the lock, idle in its transaction", limitSeconds: 10) {
                guard let holder = try Self.advisoryLockHolders(17, on: direct).first else { return false }
                backend = holder
                return try Self.state(of: holder, on: direct) == "idle in transaction"
            }

            client.kill()
            let killed = Date()
            try waitUntil("the killed client's lock to be free", limitSeconds: 10) {
                try Self.advisoryLockHolders(17, on: direct).isEmpty
            }
            // The backend releases the lock as its transaction aborts, and leaves
            // pg_stat_activity a moment later, as it exits: on a loaded machine the two
            // can be seen apart.
            try waitUntil("the killed client's backend to end", limitSeconds: 10) {
                try Self.state(of: backend, on: direct) == nil
            }
            let seconds = Date().timeIntervalSince(killed)
            #expect(seconds < 5, "lock freed and backend ended \(seconds) s after the kill")
            #expect(bouncer.log.contains("client disconnect while server was not ready"))
        }
    }

    /// A client SIGKILLed while its statement runs: PgBouncer closes the server connection
    /// at once too, but the backend, busy in the statement, notices only when the
    /// statement ends (as with a direct connection): the lock is held until then. Bounding
    /// statements (statement_timeout) bounds how long a dead client's locks stay.
    ///
    /// The statement waits for an advisory lock the test holds, and ends when the test lets
    /// it go: a `pg_sleep` of a few seconds ran out before the checks on a loaded machine.
    @Test(.requires(.pgbouncer, .psql)) func aClientKilledMidStatementKeepsItsLocksUntilTheStatementEnds() throws {
        try TestDatabase.withFresh { database in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .transaction)
            defer { bouncer.stop() }
            let direct = try database.connect()
            _ = try direct.query("SELECT pg_advisory_lock(19)", purpose: "test: holding the lock the statement waits for")
            let client = try PsqlClient(conninfo: bouncer.conninfo(database: database.name))
            defer { client.kill() }
            try client.send("BEGIN; SELECT pg_advisory_xact_lock(18); SELECT pg_advisory_lock(19);")
            var backend: Int32 = 0
            try waitUntil("the client to hold lock 18 while its statement waits for lock 19", limitSeconds: 10) {
                guard let holder = try Self.advisoryLockHolders(18, on: direct).first else { return false }
                backend = holder
                return try Self.state(of: holder, on: direct) == "active"
            }

            client.kill()
            try waitUntil("pgbouncer to close the killed client's server connection", limitSeconds: 10) {
                try bouncer.admin("SHOW SERVERS").allSatisfy { $0["remote_pid"] != String(backend) }
            }
            #expect(try Self.advisoryLockHolders(18, on: direct) == [backend], "still held: the backend is in its statement")
            #expect(try Self.state(of: backend, on: direct) == "active", "the backend has not noticed its client is gone")

            _ = try direct.query("SELECT pg_advisory_unlock(19)", purpose: "test: letting the statement end")
            let released = Date()
            try waitUntil("the lock to be free once the statement has ended", limitSeconds: 10) {
                try Self.advisoryLockHolders(18, on: direct).isEmpty
            }
            #expect(Date().timeIntervalSince(released) < 5)
        }
    }

    // MARK: Session pooling

    /// Session mode: a client keeps one server connection and its session settings, and
    /// on disconnect the server connection is reset (DISCARD ALL) before it is reused, so
    /// a session lock does not outlive its client.
    @Test(.requires(.pgbouncer, .psql)) func sessionPoolingKeepsAClientOnOneBackendAndResetsItAfterwards() throws {
        try TestDatabase.withFresh { database in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .session)
            defer { bouncer.stop() }
            var a: PostgresConnection? = try bouncer.connect(database: database.name)
            let b = try bouncer.connect(database: database.name)
            try #require(a).execute("SET statement_timeout = '4321ms'", purpose: "a session setting")
            let backendOfA = try Self.backendPID(#require(a))
            try b.execute("BEGIN", purpose: "B opening a transaction")
            #expect(try Self.backendPID(b) != backendOfA)
            try b.execute("COMMIT", purpose: "B committing")
            for _ in 0..<3 {
                #expect(try Self.backendPID(#require(a)) == backendOfA)
            }
            #expect(try #require(a).query("SELECT current_setting('statement_timeout')", purpose: "reading it back")
                .singleRow().string(0) == "4321ms")
            _ = try #require(a).query("SELECT pg_advisory_lock(4343)", purpose: "taking a session lock")

            a = nil
            let direct = try database.connect()
            try waitUntil("the session lock to go with the client", limitSeconds: 10) {
                try Self.advisoryLockHolders(4343, on: direct).isEmpty
            }
            let servers = try bouncer.admin("SHOW SERVERS").filter { $0["database"] == database.name }
            #expect(servers.contains { $0["remote_pid"] == String(backendOfA) }, "the server connection is kept for reuse: \(servers)")
        }
    }

    // MARK: Pooler restart

    /// `restart()`: every client connection breaks (its next statement fails: the
    /// connection is lost), server connections close with their session locks, and new
    /// clients connect on the same port.
    @Test(.requires(.pgbouncer, .psql)) func aPoolerRestartBreaksOpenClientConnections() throws {
        try TestDatabase.withFresh { database in
            let server = try Self.sharedServer()
            let bouncer = try PgBouncer(server: server.host, port: server.port, poolMode: .transaction)
            defer { bouncer.stop() }
            let client = try bouncer.connect(database: database.name)
            #expect(try client.query("SELECT 1", purpose: "before the restart").singleRow().int(0) == 1)
            _ = try client.query("SELECT pg_advisory_lock(55)", purpose: "taking a session lock")
            let port = bouncer.port

            try bouncer.restart()
            #expect(bouncer.port == port)
            do {
                _ = try client.query("SELECT 1", purpose: "after the restart")
                Issue.record("a statement on a connection opened before the restart succeeded")
            } catch let error as PostgresError {
                #expect(error.isConnectionLost, "\(error)")
            }
            #expect(!client.isUsable)

            let direct = try database.connect()
            try waitUntil("the restart to close the server connection and its lock", limitSeconds: 10) {
                try Self.advisoryLockHolders(55, on: direct).isEmpty
            }
            let again = try bouncer.connect(database: database.name)
            #expect(try again.query("SELECT 1", purpose: "after the restart, new client").singleRow().int(0) == 1)
        }
    }

    // MARK: Streaming standby

    /// The standby is read-only (SQLSTATE 25006), shows what the primary wrote once it has
    /// replayed it, and — after the primary crashes and it is promoted — takes writes.
    @Test(.requires(.pgBasebackup, .pgCtl)) func aStandbyFollowsThePrimaryAndTakesWritesOncePromoted() throws {
        let primary = try ThrowawayCluster()
        let writer = try primary.connect()
        try writer.execute("CREATE TABLE readings (id int PRIMARY KEY)", purpose: "creating a table")
        try writer.execute("INSERT INTO readings VALUES (1)", purpose: "a first row")
        let standby = try StreamingStandby(primary: primary)

        let replica = try standby.connect()
        #expect(try replica.query("SELECT pg_is_in_recovery()", purpose: "recovery?").singleRow().bool(0))
        #expect(try Self.count("readings", on: replica) == 1)
        #expect(try Self.sqlState { try replica.execute("INSERT INTO readings VALUES (2)", purpose: "writing to the standby") } == "25006")

        try writer.execute("INSERT INTO readings SELECT generate_series(2, 500)", purpose: "more rows")
        try standby.waitForReplay()
        #expect(try Self.count("readings", on: replica) == 500)

        try primary.crash()
        #expect(throws: PostgresError.self) { _ = try primary.connect() }
        #expect(try Self.sqlState { try writer.execute("SELECT 1", purpose: "on the crashed primary") } != nil)

        try standby.promote()
        let promoted = try standby.connect()
        try promoted.execute("INSERT INTO readings VALUES (501)", purpose: "writing to the promoted standby")
        #expect(try Self.count("readings", on: promoted) == 501)
        #expect(try !standby.isInRecovery())
    }

    /// Through PgBouncer in front of a standby, `pg_is_in_recovery()` and
    /// `transaction_read_only` say what they say on the standby itself, writes fail with
    /// 25006, and after promotion the same client connection sees a writable primary.
    @Test(.requires(.pgbouncer, .psql, .pgBasebackup, .pgCtl)) func throughThePoolerAStandbyReportsRecoveryAndReadOnly() throws {
        let primary = try ThrowawayCluster()
        try primary.connect().execute("CREATE TABLE readings (id int PRIMARY KEY)", purpose: "creating a table")
        let standby = try StreamingStandby(primary: primary)
        try standby.waitForReplay()
        let bouncer = try PgBouncer(server: standby.host, port: standby.port, poolMode: .transaction)
        defer { bouncer.stop() }
        let client = try bouncer.connect(database: "postgres")

        let before = try Self.recoveryAndReadOnly(client)
        #expect(before.inRecovery && before.transactionReadOnly == "on" && before.defaultReadOnly == "off", "\(before)")
        #expect(try Self.sqlState { try client.execute("INSERT INTO readings VALUES (1)", purpose: "writing through the pooler") } == "25006")

        try standby.promote()
        let after = try Self.recoveryAndReadOnly(client)
        #expect(!after.inRecovery && after.transactionReadOnly == "off", "\(after)")
        try client.execute("INSERT INTO readings VALUES (1)", purpose: "writing through the pooler after promotion")
    }

    // MARK: Helpers

    /// The shared test server deploy/test.sh started (socket directory, port).
    static func sharedServer() throws -> (host: String, port: String) {
        let admin = try TestDatabase.adminConnection()
        return (admin.host, admin.port)
    }

    static func backendPID(_ connection: PostgresConnection) throws -> Int32 {
        try connection.query("SELECT pg_backend_pid()", purpose: "asking for the backend").singleRow().int32(0)
    }

    /// The backends holding advisory lock `key` in the connection's database.
    static func advisoryLockHolders(_ key: Int, on connection: PostgresConnection) throws -> [Int32] {
        try connection.query(
            """
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = \(key)
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY pid
            """, purpose: "reading advisory locks"
        ).map { try $0.int32(0) }
    }

    /// pg_stat_activity's state of backend `pid`, nil when it has ended.
    static func state(of pid: Int32, on connection: PostgresConnection) throws -> String? {
        let rows = try connection.query(
            "SELECT coalesce(state, '') FROM pg_stat_activity WHERE pid = \(pid)", purpose: "reading a backend's state")
        return try rows.first.map { try $0.string(0) }
    }

    static func count(_ table: String, on connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*) FROM \(identifier: table)", purpose: "counting \(table)").singleRow().int(0)
    }

    /// The SQLSTATE `body` fails with, nil when it succeeds.
    static func sqlState(_ body: () throws -> Void) throws -> String? {
        do {
            try body()
            return nil
        } catch let error as PostgresError {
            return error.sqlState?.code ?? error.code.description
        }
    }

    static func recoveryAndReadOnly(_ connection: PostgresConnection) throws
        -> (inRecovery: Bool, transactionReadOnly: String, defaultReadOnly: String)
    {
        let row = try connection.query(
            """
            SELECT pg_is_in_recovery(), current_setting('transaction_read_only'),
                   current_setting('default_transaction_read_only')
            """, purpose: "asking whether the server is a standby").singleRow()
        return (try row.bool(0), try row.string(1), try row.string(2))
    }
}

/// `psql` as a real client process reading statements from a pipe, so a test can
/// SIGKILL a client in the middle of its session.
final class PsqlClient {
    private var pid: pid_t
    private var input: Int32

    init(conninfo: String) throws {
        let psql = try RequiredComponent.psql.path()
        let ends = try Subprocess.closeOnExecPipe()
        defer { close(ends.read) }
        do {
            pid = try Subprocess.spawn(
                [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo],
                stdin: ends.read, stdout: "/dev/null", stderr: "/dev/null")
        } catch {
            close(ends.write)
            throw error
        }
        input = ends.write
    }

    deinit { kill() }

    /// Sends `sql` (and a newline) to psql's stdin.
    func send(_ sql: String) throws {
        let bytes = Array((sql + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw SubprocessError.failed(["psql"], -1, "short write to psql's stdin") }
    }

    /// SIGKILL, as a crashing or OOM-killed client; reaped before this returns.
    func kill() {
        guard pid != 0 else { return }
        Subprocess.stop(pid, signal: SIGKILL)
        pid = 0
        close(input)
    }
}
