import Postgres
import Testing

/// Values sent as parameters come back exactly (compared as UTF-8 bytes, because
/// Swift's `==` treats "é" and "e\u{301}" as equal while PostgreSQL stores different bytes).
@Suite struct ParameterRoundTripTests {
    static let oddStrings: [String] = [
        "it's",
        #"say "hi""#,
        #"back\slash \\ \n literal"#,
        "'; DROP TABLE x; --",
        "$1 and $2",
        "tab\tnew\nline\r\n",
        "Zoë",
        "e\u{301}",                 // e + combining acute accent, not precomposed
        "👩‍👩‍👧 family, 🇩🇪 flag",
        "日本語テキスト",
        "",
        String(repeating: "ab€", count: 3_500),   // 3,500 × 5 bytes = 17,500 bytes
    ]

    @Test(arguments: oddStrings)
    func textSurvivesExactly(text: String) throws {
        let connection = try serverConnection()
        let row = try connection.query(
            """
            SELECT \(bind: text)::text AS value, octet_length(\(bind: text)::text) AS bytes,
                   \(bind: text)::text IS NULL AS is_null
            """,
            purpose: "echoing text"
        ).singleRow()
        #expect(Array(try row.string("value").utf8) == Array(text.utf8))
        #expect(try row.int("bytes") == text.utf8.count)
        #expect(try row.bool("is_null") == false)
    }

    @Test func nullIsNotTheEmptyString() throws {
        let connection = try serverConnection()
        let (null, empty): (String?, String) = (nil, "")
        let row = try connection.query(
            """
            SELECT \(bind: null)::text AS a, \(bind: empty)::text AS b,
                   \(bind: null)::text IS NULL AS a_null, \(bind: empty)::text IS NULL AS b_null
            """,
            purpose: "echoing NULL and empty"
        ).singleRow()
        #expect(try row.optionalString("a") == nil)
        #expect(try row.isNull("a"))
        #expect(try row.optionalString("b") == "")
        #expect(try row.bool("a_null") == true)
        #expect(try row.bool("b_null") == false)
    }

    @Test(arguments: [Int64.min, -1, 0, 1, Int64.max])
    func int64Extremes(value: Int64) throws {
        let connection = try serverConnection()
        let row = try connection.query("SELECT \(value)::bigint", purpose: "echoing bigint").singleRow()
        #expect(try row.int64(0) == value)
    }

    @Test func integerArraysArriveElementByElement() throws {
        let connection = try serverConnection()
        let ids: [Int64] = [Int64.min, -1, 0, 42, Int64.max]
        let row = try connection.query(
            """
            SELECT \(ids)::bigint[] = ARRAY[-9223372036854775808, -1, 0, 42, 9223372036854775807]::bigint[], \
            cardinality(\([Int64]())::bigint[]), \([3, -7])::int[]
            """,
            purpose: "echoing integer arrays"
        ).singleRow()
        #expect(try row.bool(0))
        #expect(try row.int(1) == 0)
        #expect(try row.string(2) == "{3,-7}")
    }

    @Test func intInt32AndBoolRoundTrip() throws {
        let connection = try serverConnection()
        let row = try connection.query(
            "SELECT \(Int32.min)::int AS i32, \(Int.max)::bigint AS i, \(true)::boolean AS t, \(false)::boolean AS f",
            purpose: "echoing scalars"
        ).singleRow()
        #expect(try row.int32("i32") == Int32.min)
        #expect(try row.int("i") == Int.max)
        #expect(try row.bool("t") == true)
        #expect(try row.bool("f") == false)
    }

    @Test func textArraysRoundTripThroughTheServer() throws {
        let connection = try serverConnection()
        let elements: [String?] = ["plain", "b c", nil, #"x"y"#, #"back\slash"#, "NULL", "", "{,}", "é 🥑"]
        let row = try connection.query(
            """
            SELECT \(elements)::text[] AS a, cardinality(\(elements)::text[]) AS n, \
            (\(elements)::text[])[3] IS NULL AS third_null, (\(elements)::text[])[6] AS sixth
            """,
            purpose: "echoing text[]"
        ).singleRow()
        #expect(try row.stringArray("a") == elements)
        #expect(try row.int("n") == 9)
        #expect(try row.bool("third_null"))
        #expect(try row.string("sixth") == "NULL")   // the string, not a NULL
    }

    @Test func nonOptionalStringArraysAndEmptyArrays() throws {
        let connection = try serverConnection()
        let row = try connection.query(
            """
            SELECT \(["vegan", "gluten free"])::text[] AS a, \([String]())::text[] AS e,
                   cardinality(\([String]())::text[]) AS n
            """,
            purpose: "echoing arrays"
        ).singleRow()
        #expect(try row.stringArray("a") == ["vegan", "gluten free"])
        #expect(try row.stringArray("e") == [])
        #expect(try row.int("n") == 0)
    }

    @Test func textWithANulCharacterIsRefusedBeforeSending() throws {
        let connection = try serverConnection()
        let error = try #require(throws: PostgresError.self) {
            try connection.query("SELECT \(bind: "a\u{0}b")::text", purpose: "echoing a NUL")
        }
        #expect(error.code == .invalidParameter)
        #expect(error.description.contains("$1"))
    }
}
