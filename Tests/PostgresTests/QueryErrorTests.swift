import Postgres
import TestSupport
import Testing

/// Server errors keep their SQLSTATE and fields, and say what the query was for.
@Suite struct QueryErrorTests {
    @Test func missingTableIs42P01WithThePurpose() throws {
        let connection = try serverConnection()
        let error = try #require(throws: PostgresError.self) {
            try connection.query("SELECT * FROM no_such_table", purpose: "reading changed user_settings")
        }
        #expect(error.code == .queryFailed)
        #expect(error.sqlState == "42P01")
        #expect(error.message.contains("no_such_table"))
        #expect(error.description.contains("reading changed user_settings"))
        #expect(error.description.contains("42P01"))
        #expect(!error.description.contains("\n"))
    }

    @Test func duplicateKeyIs23505WithDetail() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)", purpose: "creating t")
            try connection.execute("INSERT INTO t VALUES (\(1))", purpose: "inserting 1")
            let error = try #require(throws: PostgresError.self) {
                try connection.execute("INSERT INTO t VALUES (\(1))", purpose: "inserting 1 again")
            }
            #expect(error.sqlState == "23505")
            #expect(error.detail == "Key (id)=(1) already exists.")
            #expect(error.description.contains("inserting 1 again"))
            // The connection is still usable after a failed statement.
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 1)
        }
    }

    @Test func badIntegerTextIs22P02() throws {
        let connection = try serverConnection()
        let error = try #require(throws: PostgresError.self) {
            try connection.query("SELECT \(bind: "abc")::int", purpose: "parsing an int")
        }
        #expect(error.sqlState == "22P02")
        #expect(error.code == .queryFailed)
    }

    @Test func readingAValueAsTheWrongTypeNamesTheColumn() throws {
        let connection = try serverConnection()
        let row = try connection.query(
            "SELECT 'abc'::text AS word, NULL::int AS missing", purpose: "reading odd values"
        ).singleRow()
        let notAnInt = try #require(throws: PostgresError.self) { try row.int64("word") }
        #expect(notAnInt.code == .decodingFailed)
        #expect(notAnInt.description.contains("\"word\""))
        #expect(notAnInt.description.contains("reading odd values"))

        let null = try #require(throws: PostgresError.self) { try row.int("missing") }
        #expect(null.code == .decodingFailed)
        #expect(try row.optionalInt("missing") == nil)

        let noColumn = try #require(throws: PostgresError.self) { try row.string("nope") }
        #expect(noColumn.code == .decodingFailed)
        #expect(noColumn.description.contains("nope"))
    }

    @Test func integerOutOfRangeForInt32IsADecodingError() throws {
        let connection = try serverConnection()
        // 2^31 = 2,147,483,648 is one past Int32.max.
        let row = try connection.query("SELECT 2147483648::bigint", purpose: "reading a big number").singleRow()
        #expect(try row.int64(0) == 2_147_483_648)
        #expect(throws: PostgresError.self) { try row.int32(0) }
    }

    @Test func singleRowRefusesZeroRows() throws {
        let connection = try serverConnection()
        let result = try connection.query("SELECT 1 WHERE false", purpose: "finding nothing")
        #expect(result.isEmpty)
        let error = try #require(throws: PostgresError.self) { try result.singleRow() }
        #expect(error.code == .unexpectedResult)
    }

    @Test func affectedRowsCountsUpdates() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int)", purpose: "creating t")
            // generate_series(1, 5) inserts 5 rows; ids 4 and 5 are > 3, so 2 are updated.
            #expect(try connection.execute("INSERT INTO t SELECT generate_series(1, 5)", purpose: "filling") == 5)
            #expect(try connection.execute("UPDATE t SET id = id + 10 WHERE id > \(3)", purpose: "bumping") == 2)
        }
    }
}
