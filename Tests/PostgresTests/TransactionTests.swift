import Postgres
import TestSupport
import Testing

@Suite struct TransactionTests {
    private struct Boom: Error {}

    @Test func aThrowRollsBackAndRethrowsTheSameError() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int)", purpose: "creating t")
            #expect(throws: Boom.self) {
                try connection.withTransaction { transaction in
                    try transaction.execute("INSERT INTO t VALUES (1), (2)", purpose: "inserting")
                    #expect(transaction.isInTransaction)
                    throw Boom()
                }
            }
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
            // Not left inside a transaction block.
            #expect(!connection.isInTransaction)
        }
    }

    @Test func successCommitsAndReturnsTheBodysValue() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int)", purpose: "creating t")
            let inserted = try connection.withTransaction { transaction in
                try transaction.execute("INSERT INTO t VALUES (1), (2), (3)", purpose: "inserting")
            }
            #expect(inserted == 3)
            // A second connection sees the committed rows.
            let other = try database.connect()
            #expect(try other.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 3)
        }
    }

    @Test func isolationLevelIsApplied() throws {
        let connection = try serverConnection()
        let level = try connection.withTransaction(isolation: .serializable) { transaction in
            try transaction.query("SELECT current_setting('transaction_isolation')", purpose: "reading isolation")
                .singleRow().string(0)
        }
        #expect(level == "serializable")
    }

    @Test func aServerErrorInsideRollsBackEarlierStatements() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)", purpose: "creating t")
            let error = try #require(throws: PostgresError.self) {
                try connection.withTransaction { transaction in
                    try transaction.execute("INSERT INTO t VALUES (1)", purpose: "inserting 1")
                    try transaction.execute("INSERT INTO t VALUES (1)", purpose: "inserting 1 again")
                }
            }
            #expect(error.sqlState == "23505")
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
        }
    }
}
