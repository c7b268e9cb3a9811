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

    /// Every form libpq takes still connects beside the scheme check: a plain database
    /// name (the rest from PGHOST/PGPORT), postgres:// and a multi-host URL.
    @Test func aDatabaseNameAndPostgresAndMultiHostURLsConnect() throws {
        let reference = try serverConnection()
        try TestDatabase.withFresh { database in
            let host = reference.host.uriEncoded
            for conninfo in [
                database.name,
                "postgres://\(reference.user.uriEncoded)@\(host):\(reference.port)/\(database.name)",
                "postgresql://\(host):1,\(host):\(reference.port)/\(database.name)"
                    + "?user=\(reference.user.uriEncoded)&target_session_attrs=read-write&connect_timeout=2",
            ] {
                let connection = try PostgresConnection(conninfo: conninfo)
                #expect(connection.database == database.name, "\(conninfo)")
            }
        }
    }

    /// libpq would take `postgresq://…` (no '=') for a database name on the local server.
    @Test(arguments: ["postgresq://app:pw-secret@db.internal/app", "  mysql://db/app?sslmode=require",
                      "http://db.internal:5432/app", "POSTGRESQL://db/app"])
    func aURLWithAnotherSchemeIsRefusedBeforeLibpqSeesIt(conninfo: String) throws {
        let error = try #require(throws: PostgresError.self) { _ = try PostgresConnection(conninfo: conninfo) }
        #expect(error.code == .connectionFailed)
        #expect(error.message.contains("is not a PostgreSQL URL scheme: write postgresql://… or postgres://…"))
        #expect(!error.description.contains("pw-secret"))
        #expect(!error.description.contains("db.internal"), "only the scheme is named")
    }

    @Test func databaseURLTakesPrecedenceOverThePGEnvironment() throws {
        try TestDatabase.withFresh { database in
            // PGDATABASE says "postgres"; DATABASE_URL names the fresh database and wins.
            let connection = try PostgresConnection.connectFromEnvironment(databaseURL: database.conninfo)
            #expect(connection.database == database.name)
        }
    }

    @Test func transactionSettingsHoldForEachStatementAndTransactionButNeverForTheSession() throws {
        let connection = try serverConnection()
        connection.transactionSettings.set("statement_timeout", .milliseconds(1500))
        connection.transactionSettings.set("lock_timeout", .seconds(2))
        connection.transactionSettings.set("TimeZone", "Pacific/Chatham")
        let read: SQLQuery = """
            SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l, \
            current_setting('TimeZone') AS z
            """
        // A statement outside a transaction: the settings travel with it.
        let row = try connection.query(read, purpose: "reading settings").singleRow()
        // PostgreSQL shows 1500 ms as "1500ms" and 2000 ms in the largest exact unit, "2s".
        #expect(try row.string("s") == "1500ms")
        #expect(try row.string("l") == "2s")
        #expect(try row.string("z") == "Pacific/Chatham")
        // Inside a transaction: set once at BEGIN, for every statement of it.
        try connection.withTransaction { conn in
            _ = try conn.query("SELECT 1", purpose: "first statement")
            #expect(try conn.query(read, purpose: "reading settings").singleRow().string("z") == "Pacific/Chatham")
        }
        var streamed: [String] = []
        try connection.forEachRow(read, purpose: "streaming settings") { row in
            streamed.append(try row.string("s"))
            return .continue
        }
        #expect(streamed == ["1500ms"])
        // Nothing was set for the session: without the settings, the server's defaults.
        connection.transactionSettings = TransactionSettings()
        let session = try connection.query(read, purpose: "reading session settings").singleRow()
        #expect(try session.string("s") == "0")
        #expect(try session.string("z") != "Pacific/Chatham")
    }

    @Test func aFailingStatementSentWithSettingsReportsItsOwnError() throws {
        let connection = try serverConnection()
        connection.transactionSettings.set("lock_timeout", .seconds(1))
        #expect {
            try connection.query("SELECT 1/0", purpose: "dividing by zero")
        } throws: { error in
            (error as? PostgresError)?.sqlState == "22012"
        }
        // The connection is usable afterwards, outside any transaction.
        #expect(try connection.query("SELECT 2", purpose: "after the error").singleRow().int(0) == 2)
        #expect(!connection.isInTransaction)
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

    @Test func identifiersAreQuotedWithTheirDoubleQuotesDoubled() throws {
        let name = #"we"ird name"#
        // Double quotes inside an identifier are doubled, and the whole is quoted.
        #expect(("\(identifier: name)" as SQLQuery).sql == #""we""ird name""#)
        // The server reads back the very name.
        let row = try serverConnection().query("SELECT 1 AS \(identifier: name)",
        purpose: "naming a column").singleRow()
        #expect(row.columns.names == [name])
    }
}
