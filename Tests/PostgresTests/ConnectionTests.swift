import Postgres
import TestSupport
import Testing

@Suite struct ConnectionTests {
    @Test func connectsFromTheLibpqEnvironmentAndNamesItselfPlanRegen() throws {
        let connection = try PostgresConnection.connectFromEnvironment(databaseURL: nil)
        // deploy/test.sh starts PostgreSQL 15: versions are major × 10000 + minor.
        #expect(connection.serverVersion >= 150_000)
        #expect(connection.backendPID > 0)
        let row = try connection.query(
            "SELECT current_setting('application_name') AS name, pg_backend_pid() AS pid",
            purpose: "reading session identity"
        ).singleRow()
        #expect(try row.string("name") == "plan-regen")
        #expect(try row.int32("pid") == connection.backendPID)
    }

    @Test func connectsFromAPostgresqlURI() throws {
        let reference = try serverConnection()
        try TestDatabase.withFresh { database in
            // A socket directory goes into the URI's host parameter, percent-encoded.
            let uri = "postgresql:///\(database.name)?host=\(reference.host.uriEncoded)"
                + "&port=\(reference.port)&user=\(reference.user.uriEncoded)"
            let connection = try PostgresConnection(conninfo: uri)
            #expect(connection.database == database.name)
            let name = try connection.query("SELECT current_database()", purpose: "naming the database")
                .singleRow().string(0)
            #expect(name == database.name)
        }
    }

    @Test func databaseURLTakesPrecedenceOverThePGEnvironment() throws {
        try TestDatabase.withFresh { database in
            // PGDATABASE says "postgres"; DATABASE_URL names the fresh database and wins.
            let connection = try PostgresConnection.connectFromEnvironment(databaseURL: database.conninfo)
            #expect(connection.database == database.name)
        }
    }

    @Test func setsStatementAndLockTimeoutsForTheSession() throws {
        let connection = try serverConnection()
        try connection.setSessionParameters(statementTimeout: .milliseconds(1500), lockTimeout: .seconds(2))
        let row = try connection.query(
            "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l",
            purpose: "reading timeouts"
        ).singleRow()
        // PostgreSQL shows 1500 ms as "1500ms" and 2000 ms in the largest exact unit, "2s".
        #expect(try row.string("s") == "1500ms")
        #expect(try row.string("l") == "2s")
    }

    @Test func serverNoticesGoToTheCallbackNotStderr() throws {
        let connection = try serverConnection()
        var notices: [String] = []
        connection.onNotice = { notices.append($0) }
        try connection.executeScript(
            "DO $$ BEGIN RAISE NOTICE 'plan % ready', 42; END $$",
            purpose: "raising a notice")
        #expect(notices.count == 1)
        #expect(notices.first?.contains("plan 42 ready") == true)
    }

    @Test func executeScriptRunsSeveralStatements() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.executeScript(
                """
                CREATE TABLE a (id int);
                INSERT INTO a VALUES (1), (2);
                INSERT INTO a VALUES (3);
                """,
                purpose: "running a migration script")
            // 1 + 2 + 3 = 6
            let sum = try connection.query("SELECT sum(id)::int FROM a", purpose: "summing").singleRow().int(0)
            #expect(sum == 6)
        }
    }

    @Test func escapeIdentifierQuotesOddNames() throws {
        let connection = try serverConnection()
        // Double quotes inside an identifier are doubled, and the whole is quoted.
        #expect(try connection.escapeIdentifier(#"we"ird name"#) == #""we""ird name""#)
    }
}
