import Postgres
import Testing

/// Bad settings fail with one clear line and never leak the password.
@Suite struct ConnectionFailureTests {
    /// A conninfo pointing at the test server's socket directory but at a port nobody
    /// listens on, so the failure is quick and certain.
    private func deadPortConninfo(password: String) throws -> String {
        let host = try serverConnection().host
        return "host='\(host)' port=1 user=postgres password='\(password)' connect_timeout=2"
    }

    private func connectionError(_ conninfo: String) throws -> PostgresError {
        let error = try #require(throws: PostgresError.self) {
            _ = try PostgresConnection(conninfo: conninfo)
        }
        #expect(error.code == .connectionFailed)
        #expect(!error.description.contains("\n"))
        return error
    }

    @Test func wrongPortNamesTheTargetWithoutThePassword() throws {
        let error = try connectionError(try deadPortConninfo(password: "s3cret-kv-pass"))
        #expect(error.description.contains("port=1"))
        #expect(error.description.contains("user=postgres"))
        #expect(!error.description.contains("s3cret-kv-pass"))
    }

    @Test func unknownHostFailsWithLibpqsReason() throws {
        let error = try connectionError(
            "host=no-such-host.invalid port=5432 password=hunter2-secret connect_timeout=2")
        #expect(error.description.contains("no-such-host.invalid"))
        #expect(!error.description.contains("hunter2-secret"))
    }

    @Test func passwordInAURIStaysOutOfTheMessage() throws {
        let host = try serverConnection().host
        let error = try connectionError(
            "postgresql://postgres:uri-pa%24%24word@/postgres?host=\(host.uriEncoded)&port=1")
        // Neither the written nor the decoded form ("uri-pa$$word") appears.
        #expect(!error.description.contains("uri-pa%24%24word"))
        #expect(!error.description.contains("uri-pa$$word"))
    }

    @Test(arguments: [
        // libpq echoes the whole malformed URI in its message.
        "postgresql://user:leaky-secret@[::1",
        "postgresql://user:leaky-secret@host:notaport/db",
        // A malformed key=value string.
        "host=x password=leaky-secret port",
        "password='leaky-secret' = nonsense",
    ])
    func malformedSettingsFailWithoutCrashOrLeak(conninfo: String) throws {
        let error = try connectionError(conninfo)
        #expect(!error.description.contains("leaky-secret"))
        #expect(!error.message.isEmpty)
    }
}
