import Postgres
import Testing

/// A backend ended by `pg_terminate_backend` (SQLSTATE 57P01) reads as "database went away".
@Suite struct ConnectionLossTests {
    /// Terminates `victim`'s backend from a second connection and waits (up to 5 s,
    /// PostgreSQL's own timeout argument) until it is gone.
    private func terminate(_ victim: PostgresConnection) throws {
        let killer = try serverConnection()
        let terminated = try killer.query(
            "SELECT pg_terminate_backend(\(victim.backendPID), 5000)", purpose: "terminating a backend"
        ).singleRow().bool(0)
        #expect(terminated)
    }

    @Test func aQueryOnATerminatedBackendIsConnectionLost() throws {
        let victim = try serverConnection()
        try terminate(victim)
        let error = try #require(throws: PostgresError.self) {
            try victim.query("SELECT 1", purpose: "reading changed user_settings")
        }
        #expect(error.code == .connectionLost)
        #expect(error.isConnectionLost)
        #expect(error.description.hasPrefix("database went away while reading changed user_settings"))
        #expect(!victim.isUsable)
    }

    @Test func streamingOnATerminatedBackendIsConnectionLost() throws {
        let victim = try serverConnection()
        try terminate(victim)
        let error = try #require(throws: PostgresError.self) {
            try victim.forEachRow("SELECT 1", purpose: "streaming") { _ in .continue }
        }
        #expect(error.code == .connectionLost)
    }

    @Test func aPipelineOnATerminatedBackendIsConnectionLost() throws {
        let victim = try serverConnection()
        // A statement sent with transaction settings goes with them in one pipeline.
        victim.transactionSettings.set("lock_timeout", .seconds(1))
        try terminate(victim)
        let error = try #require(throws: PostgresError.self) {
            try victim.query("SELECT 1", purpose: "reading with settings")
        }
        #expect(error.code == .connectionLost)
    }

    @Test func aCopyOnATerminatedBackendIsConnectionLost() throws {
        let victim = try serverConnection()
        try terminate(victim)
        let error = try #require(throws: PostgresError.self) {
            try victim.copyIn("COPY pg_temp.x FROM STDIN", purpose: "copying") { _ in }
        }
        #expect(error.code == .connectionLost)
    }
}
