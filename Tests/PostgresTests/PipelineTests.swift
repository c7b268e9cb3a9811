import Postgres
import TestSupport
import Testing

/// Statements sent together: a transaction's BEGIN with its first statement, several
/// statements in one round trip (`pipelined`).
@Suite struct PipelineTests {
    /// Results are read by what their statements are for: each in turn, and one more than
    /// the pipeline returned throws, naming it, where an index would trap.
    @Test func pipelinedResultsAreReadInOrderAndAMissingOneThrowsNamingIt() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            var results = PipelinedResults(try connection.pipelined([
                ("SELECT 1 AS first", "the first"), ("SELECT 2 AS second", "the second"),
            ]))
            #expect(try results.next("the first").singleRow().int("first") == 1)
            #expect(try results.next("the second").singleRow().int("second") == 2)
            let missing = #expect(throws: PostgresError.self) { try results.next("a third") }
            #expect(missing?.purpose == "a third" && missing?.code == .unexpectedResult)
        }
    }

    /// A transaction's BEGIN and settings travel with its first statement, and one that
    /// sends nothing costs nothing: round trips are what a remote database charges for.
    @Test func aTransactionCostsOneRoundTripPerStatementPlusItsCommit() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            connection.transactionSettings.set("lock_timeout", .seconds(7))
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)", purpose: "creating t")
            var before = connection.roundTrips
            try connection.withTransaction { _ in }
            #expect(connection.roundTrips == before)
            before = connection.roundTrips
            let timeout = try connection.withTransaction { transaction in
                try transaction.execute("INSERT INTO t VALUES (1)", purpose: "inserting")
                return try transaction.query("SHOW lock_timeout", purpose: "reading the setting").singleRow().string(0)
            }
            #expect(timeout == "7s")
            #expect(connection.roundTrips == before + 3, "INSERT (with BEGIN and the settings), SHOW, COMMIT")
            // Statements in one round trip; an error names the statement that failed.
            before = connection.roundTrips
            let thrown = #expect(throws: PostgresError.self) {
                try connection.withTransaction { transaction in
                    _ = try transaction.pipelined([
                        ("INSERT INTO t VALUES (\(2))", "inserting 2"),
                        ("INSERT INTO t VALUES (\(1))", "inserting 1 again"),
                    ])
                }
            }
            #expect(thrown?.purpose == "inserting 1 again")
            #expect(thrown?.sqlState == "23505")
            #expect(connection.roundTrips == before + 2, "the pipeline (with BEGIN), ROLLBACK")
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 1)
        }
    }
}
