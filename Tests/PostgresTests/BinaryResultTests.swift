import Postgres
import Testing

/// Rows asked for in binary format (`SQLQuery.binaryResults()`) read as the same values as
/// in text format, and a column whose binary form the accessor does not know is refused.
@Suite struct BinaryResultTests {
    /// The same statement in both formats: PostgreSQL's own text output is the reference.
    private func bothFormats(_ query: SQLQuery, _ connection: PostgresConnection) throws
        -> (text: PostgresRow, binary: PostgresRow) {
        (try connection.query(query, purpose: "reading in text").singleRow(),
         try connection.query(query.binaryResults(), purpose: "reading in binary").singleRow())
    }

    @Test func integersAndBooleansReadAsInText() throws {
        let connection = try serverConnection()
        let (text, binary) = try bothFormats(
            """
            SELECT (-32768)::int2 AS small, 2147483647::int4 AS regular, (-9223372036854775808)::int8 AS big,
                   true AS yes, false AS no, NULL::int8 AS missing, NULL::bool AS unknown
            """, connection)
        for column in ["small", "regular", "big"] {
            #expect(try binary.int64(column) == text.int64(column))
        }
        #expect(try binary.int64("big") == Int64.min)
        #expect(try binary.int("small") == -32768)
        #expect(try binary.int32("regular") == Int32.max)
        #expect(try binary.bool("yes") == true)
        #expect(try binary.bool("no") == false)
        #expect(try binary.optionalInt64("missing") == nil)
        #expect(try binary.optionalBool("unknown") == nil)
    }

    /// Exact microseconds since 1970, through every edge the text form of `microseconds`
    /// SQL would give: before 1970, before 2000 (binary's own epoch), BC, far ahead, and
    /// both infinities as the Int64 extremes.
    @Test(arguments: [
        "2026-11-22 12:00:00.123456+00", "1999-12-31 23:59:59.999999+00", "1969-12-31 23:59:59.999999+00",
        "0044-03-15 12:00:00+00 BC", "99999-12-31 23:59:59.999999+00", "4713-01-01 00:00:00+00 BC",
        "infinity", "-infinity",
    ])
    func timestampsAreExactMicroseconds(timestamp: String) throws {
        let connection = try serverConnection()
        try connection.withTransaction { transaction in
            try transaction.execute("SET LOCAL TimeZone = 'Pacific/Chatham'", purpose: "a zone far from UTC")
            let (text, binary) = try bothFormats(
                """
                SELECT \(bind: timestamp)::timestamptz AS at, (\(bind: timestamp)::timestamptz AT TIME ZONE 'UTC') AS wall,
                       CASE WHEN \(bind: timestamp)::timestamptz = 'infinity' THEN 9223372036854775807
                            WHEN \(bind: timestamp)::timestamptz = '-infinity' THEN -9223372036854775808
                            ELSE (extract(epoch FROM \(bind: timestamp)::timestamptz) * 1000000)::int8 END AS expected
                """, transaction)
            let expected = try text.int64("expected")
            #expect(try binary.optionalMicrosecondsSinceEpoch("at") == expected)
            // A timestamp without time zone counts the same wall clock as UTC.
            #expect(try binary.optionalMicrosecondsSinceEpoch("wall") == expected)
            // An integer column holding microseconds reads the same, in either format.
            #expect(try text.optionalMicrosecondsSinceEpoch("expected") == expected)
            #expect(try binary.optionalMicrosecondsSinceEpoch("expected") == expected)
        }
    }

    /// PostgreSQL's last timestamp is past what microseconds since 1970 can count in an
    /// Int64 (its binary form counts from 2000): refused, as the SQL form refuses it
    /// (`bigint out of range`), never wrapped.
    @Test func theLastTimestampIsRefused() throws {
        let connection = try serverConnection()
        let row = try connection.query(
            ("SELECT '294276-12-31 23:59:59.999999+00'::timestamptz AS at" as SQLQuery).binaryResults(),
            purpose: "reading in binary").singleRow()
        #expect(throws: PostgresError.self) { try row.optionalMicrosecondsSinceEpoch("at") }
    }

    @Test func textLikeColumnsAreTheirText() throws {
        let connection = try serverConnection()
        let (text, binary) = try bothFormats(
            """
            SELECT 'Zoë 👩‍👩‍👧'::text AS plain, 'abc'::varchar(5) AS varying, 'ab'::char(4) AS padded,
                   '{"a": [1, 2]}'::json AS document, ARRAY['x', NULL, 'y z']::text[]::text AS list
            """, connection)
        for column in ["plain", "varying", "padded", "document"] {
            #expect(try binary.string(column) == text.string(column))
        }
        #expect(try binary.stringArray("list") == ["x", nil, "y z"])
    }

    /// A type whose binary form is not its text: the error names the column and says
    /// to cast it, instead of handing out bytes that only look like text.
    @Test(arguments: ["'{\"a\": 1}'::jsonb", "1.5::numeric", "'2026-11-22'::date", "ARRAY['x']::text[]"])
    func otherTypesAreRefusedWithAHint(expression: String) throws {
        let connection = try serverConnection()
        let row = try connection.query(
            ("SELECT \(unescaped: expression) AS value" as SQLQuery).binaryResults(), purpose: "reading in binary").singleRow()
        do {
            _ = try row.string("value")
            Issue.record("read \(expression) as text")
        } catch let error as PostgresError {
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("\"value\""))
            #expect(error.message.contains("cast it in the SQL"))
        }
        #expect(throws: PostgresError.self) { try row.int64("value") }
    }
}
