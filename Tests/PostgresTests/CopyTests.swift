import Postgres
import TestSupport
import Testing

@Suite struct CopyTests {
    private struct Abandon: Error {}

    /// The name row `id` gets: plain text plus every character text COPY must escape,
    /// in a form SQL can rebuild from `id` to check each row on the server.
    private static func name(_ id: Int) -> String { "row \(id)\t\\N\n\r\\" }
    private static let nameInSQL = #"'row ' || id || E'\t\\N\n\r\\'"#

    @Test func copiesOneHundredThousandRowsExactly() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute(
                "CREATE TABLE t (id bigint, name text, note text, tags text[])", purpose: "creating t")
            let rowCount = 100_000
            let copied = try connection.copyIn(
                "COPY t (id, name, note, tags) FROM STDIN", purpose: "loading t"
            ) { writer in
                for id in 1...rowCount {
                    // Every third row has a NULL note; the rest have an empty-string note.
                    let note: String? = id % 3 == 0 ? nil : ""
                    try writer.addRow([id, Self.name(id), note, ["a b", #"q"uote"#]])
                }
                #expect(writer.rowCount == rowCount)
            }
            #expect(copied == rowCount)
            let row = try connection.query(
                """
                SELECT count(*) AS n, sum(id) AS total,
                       count(*) FILTER (WHERE name <> \(unescaped: Self.nameInSQL)) AS wrong_names,
                       count(*) FILTER (WHERE note IS NULL) AS null_notes,
                       count(*) FILTER (WHERE note = '') AS empty_notes,
                       count(*) FILTER (WHERE tags <> ARRAY['a b', 'q"uote']) AS wrong_tags
                FROM t
                """,
                purpose: "checking t"
            ).singleRow()
            #expect(try row.int("n") == 100_000)
            // 1 + 2 + … + 100,000 = 100,000 × 100,001 / 2 = 5,000,050,000
            #expect(try row.int64("total") == 5_000_050_000)
            #expect(try row.int("wrong_names") == 0)
            // ⌊100,000 / 3⌋ = 33,333 NULL notes; 100,000 − 33,333 = 66,667 empty ones.
            #expect(try row.int("null_notes") == 33_333)
            #expect(try row.int("empty_notes") == 66_667)
            #expect(try row.int("wrong_tags") == 0)
        }
    }

    /// A plain-text value of the test: its text as given (dates, `infinity`).
    private struct Plain: PostgresPlainText {
        var text: String
        var postgresTextCount: Int { text.utf8.count }
        func putPostgresText(into buffer: UnsafeMutableBufferPointer<UInt8>) {
            UnsafeMutableRawBufferPointer(buffer).copyBytes(from: text.utf8)
        }
    }

    /// Integers written digit by digit from the last (`row.integer`) arrive exactly, the
    /// extremes and the signs included.
    @Test func integersArriveExactlyAtTheExtremes() throws {
        let values: [Int64?] = [0, 7, -1, 10, -10, 99, 100, 1_000_000_007, .max, .min, .max - 1, .min + 1, nil]
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int, n int8)", purpose: "creating t")
            try connection.copyIn("COPY t (id, n) FROM STDIN", purpose: "loading t") { writer in
                for index in values.indices {
                    try writer.addRow { row in
                        row.integer(index)
                        row.integer(values[index])
                    }
                }
            }
            let stored = try connection.query("SELECT n FROM t ORDER BY id", purpose: "reading t")
                .map { try $0.optionalInt64("n") }
            #expect(stored == values)
        }
    }

    /// Compact JSON with and without backslashes (the one byte it escapes), plain values
    /// written in place and NULLs arrive as sent; the same plain values as an array
    /// parameter.
    @Test func compactJSONAndPlainValuesArriveAsSent() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int, doc jsonb, day date, at timestamptz)", purpose: "creating t")
            let documents: [String?] = [#"{"a":1,"b":[true,null]}"#, #"{"path":"C:\\x","q":"say \"hi\"","u":"\u00e9\n"}"#,
                                        #"{"name": "Zoë", "n": 2.50}"#, nil]
            let days: [Plain?] = [Plain(text: "2026-11-24"), nil, Plain(text: "infinity"), Plain(text: "0001-01-01")]
            let instants: [Plain?] = [Plain(text: "2026-11-24T12:00:00.000001Z"), Plain(text: "-infinity"), nil,
                                      Plain(text: "9999-12-31T23:59:59.999999Z")]
            try connection.copyIn("COPY t (id, doc, day, at) FROM STDIN", purpose: "loading t") { writer in
                for index in documents.indices {
                    try writer.addRow { row in
                        row.integer(index)
                        row.compactJSON(utf8: documents[index].map { Array($0.utf8) })
                        row.plain(days[index])
                        row.plain(instants[index])
                    }
                }
            }
            for index in documents.indices {
                let row = try connection.query(
                    """
                    SELECT doc = \(bind: documents[index])::jsonb AS same_doc, doc IS NULL AS null_doc,
                           day IS NOT DISTINCT FROM \(bind: days[index]?.text)::date AS same_day,
                           at IS NOT DISTINCT FROM \(bind: instants[index]?.text)::timestamptz AS same_at
                    FROM t WHERE id = \(index)
                    """, purpose: "checking row \(index)").singleRow()
                #expect(try row.bool("null_doc") == (documents[index] == nil), "row \(index)")
                if documents[index] != nil { #expect(try row.bool("same_doc"), "row \(index)") }
                #expect(try row.bool("same_day"), "row \(index)")
                #expect(try row.bool("same_at"), "row \(index)")
            }
            let arrays = try connection.query(
                """
                SELECT \(PostgresPlainArray(days))::date[] IS NOT DISTINCT FROM (SELECT array_agg(day ORDER BY id) FROM t) AS days,
                       \(PostgresPlainArray(instants))::timestamptz[]
                           IS NOT DISTINCT FROM (SELECT array_agg(at ORDER BY id) FROM t) AS instants,
                       cardinality(\(PostgresPlainArray([Plain?]()))::date[]) AS empty
                """, purpose: "checking the arrays").singleRow()
            #expect(try arrays.bool("days"))
            #expect(try arrays.bool("instants"))
            #expect(try arrays.int("empty") == 0)
        }
    }

    @Test func aThrowInsideAbortsTheCopyAndKeepsTheConnection() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int)", purpose: "creating t")
            #expect(throws: Abandon.self) {
                // 300,000 rows are more than one 256 KiB chunk, so some already reached
                // the server before the throw.
                try connection.copyIn("COPY t (id) FROM STDIN", purpose: "loading t") { writer in
                    for id in 1...300_000 { try writer.addRow([id]) }
                    throw Abandon()
                }
            }
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
        }
    }

    @Test func badDataFailsWithTheServersSQLStateAndKeepsTheConnection() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (id int)", purpose: "creating t")
            let error = try #require(throws: PostgresError.self) {
                try connection.copyIn("COPY t (id) FROM STDIN", purpose: "loading t") { writer in
                    try writer.addRow([1])
                    try writer.addRow(["not a number"])
                }
            }
            #expect(error.code == .copyFailed)
            #expect(error.sqlState == "22P02")
            #expect(error.description.contains("loading t"))
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
        }
    }

    @Test func copyIntoAMissingTableFailsWith42P01() throws {
        let connection = try serverConnection()
        let error = try #require(throws: PostgresError.self) {
            try connection.copyIn("COPY missing_table FROM STDIN", purpose: "loading nothing") { _ in }
        }
        #expect(error.sqlState == "42P01")
        #expect(try connection.query("SELECT 1", purpose: "checking").singleRow().int(0) == 1)
    }

    @Test func aNulCharacterIsRefusedAndTheCopyAborted() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (name text)", purpose: "creating t")
            let error = try #require(throws: PostgresError.self) {
                try connection.copyIn("COPY t (name) FROM STDIN", purpose: "loading t") { writer in
                    try writer.addRow(["fine"])
                    try writer.addRow(["bad\u{0}"])
                }
            }
            #expect(error.code == .invalidParameter)
            #expect(try connection.query("SELECT count(*) FROM t", purpose: "counting").singleRow().int(0) == 0)
        }
    }
}
