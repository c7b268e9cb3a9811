import Postgres
import TestSupport
import Testing

@Suite struct PipelineTests {
    @Test func tenThousandInsertsInAPipeline() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY, label text)", purpose: "creating t")
            let rows: [[(any PostgresParameter)?]] = (1...10_000).map { (id: Int) in [id, "label \(id)"] }
            let counts = try connection.executeBatch(
                "INSERT INTO t (id, label) VALUES ($1, $2)", rows, syncEvery: 1000, purpose: "inserting labels")
            #expect(counts.count == 10_000)
            #expect(counts.allSatisfy { $0 == 1 })
            let row = try connection.query(
                "SELECT count(*) AS n, sum(id) AS total, count(*) FILTER (WHERE label <> 'label ' || id) AS wrong FROM t",
                purpose: "checking t"
            ).singleRow()
            #expect(try row.int("n") == 10_000)
            // 1 + … + 10,000 = 10,000 × 10,001 / 2 = 50,005,000
            #expect(try row.int64("total") == 50_005_000)
            #expect(try row.int("wrong") == 0)
        }
    }

    @Test func queryBatchReturnsEachStatementsRows() throws {
        let connection = try serverConnection()
        let results = try connection.queryBatch(
            "SELECT $1::int * 2 AS doubled", [[1], [2], [3]], syncEvery: 2, purpose: "doubling")
        let doubled = try results.map { try $0.singleRow().int("doubled") }
        #expect(doubled == [2, 4, 6])
    }

    @Test func aFailureThrowsItsSQLStateAndLeavesTheConnectionUsable() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)", purpose: "creating t")
            // Row 2,500 repeats id 1 → 23505 inside the third segment (rows 2,001–3,000).
            let rows: [[(any PostgresParameter)?]] = (1...5_000).map { [$0 == 2_500 ? 1 : $0] }
            let error = try #require(throws: PostgresError.self) {
                try connection.executeBatch("INSERT INTO t VALUES ($1)", rows, syncEvery: 1000, purpose: "inserting ids")
            }
            #expect(error.sqlState == "23505")
            #expect(error.description.contains("inserting ids"))
            // Segments are implicit transactions: the two before the failure (2,000 rows)
            // stay, the failing one is rolled back; later segments may have run as well.
            let count = try connection.query("SELECT count(*) FROM t WHERE id BETWEEN 2001 AND 3000", purpose: "counting")
                .singleRow().int(0)
            #expect(count == 0)
            #expect(try connection.query("SELECT count(*) FROM t WHERE id <= 2000", purpose: "counting")
                .singleRow().int(0) == 2_000)
        }
    }

    @Test func insideATransactionAFailureKeepsNothing() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)", purpose: "creating t")
            let rows: [[(any PostgresParameter)?]] = (1...3_000).map { [$0 == 2_999 ? 1 : $0] }
            #expect(throws: PostgresError.self) {
                try connection.withTransaction { transaction in
                    try transaction.executeBatch("INSERT INTO t VALUES ($1)", rows, syncEvery: 500, purpose: "inserting ids")
                }
            }
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
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
                        PostgresStatement("INSERT INTO t VALUES ($1)", [2], purpose: "inserting 2"),
                        PostgresStatement("INSERT INTO t VALUES ($1)", [1], purpose: "inserting 1 again"),
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
