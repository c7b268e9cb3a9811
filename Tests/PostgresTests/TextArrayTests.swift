import Postgres
import Testing

/// PostgreSQL's array text form, decoded without a server (rules of array_in).
@Suite struct TextArrayDecodingTests {
    @Test(arguments: [
        // Quoted elements keep spaces; \" inside quotes is a quote; unquoted NULL is NULL.
        (#"{a,"b c",NULL,"x\"y"}"#, ["a", "b c", nil, #"x"y"#] as [String?]),
        ("{}", []),
        // Quoting turns the word NULL back into a string; any letter case of NULL is NULL.
        (#"{"NULL",null,NuLl}"#, ["NULL", nil, nil]),
        // Empty strings must be quoted to exist.
        (#"{"",""}"#, ["", ""]),
        // A quoted backslash is written \\ ; a quoted comma and braces are plain text.
        (#"{"a\\b","1,2","{x}"}"#, [#"a\b"#, "1,2", "{x}"]),
        // Whitespace around elements is dropped, inner whitespace kept.
        ("{ a , b c ,\td }", ["a", "b c", "d"]),
        // In an unquoted element a backslash escapes the next character, and an
        // escaped trailing space survives trimming.
        (#"{a\,b,c\ ,\NULL}"#, ["a,b", "c ", "NULL"]),
        // A dimension prefix is skipped.
        ("[0:1]={x,y}", ["x", "y"]),
        // Multibyte text is kept as is.
        (#"{"Zoë 👩‍👩‍👧",日本}"#, ["Zoë 👩‍👩‍👧", "日本"]),
        // As PostgreSQL prints most arrays (the quick path): plain elements, NULLs.
        ("{vegetarian,halal}", ["vegetarian", "halal"]),
        ("{NULL,Null,nulls,x}", [nil, nil, "nulls", "x"]),
        ("{日本,a.b-c}", ["日本", "a.b-c"]),
        ("{x}", ["x"]),
    ])
    func decodesEveryEscapingRule(literal: String, expected: [String?]) throws {
        #expect(try PostgresTextArray.decode(literal) == expected)
        // The same from a result's bytes (how rows are read).
        var utf8 = literal
        #expect(try utf8.withUTF8 { try PostgresTextArray.decode(utf8: $0) } == expected)
    }

    @Test(arguments: [
        "",            // no braces at all
        "a,b",         // no braces
        "{a",          // unterminated
        #"{"a}"#,      // unterminated quote
        "{a,}",        // empty unquoted element
        "{{a},{b}}",   // two dimensions
        "{a}x",        // text after the array
        #"{a"b}"#,     // quote inside an unquoted element
    ])
    func rejectsMalformedLiterals(literal: String) {
        #expect(throws: PostgresTextArray.DecodingError.self) {
            try PostgresTextArray.decode(literal)
        }
        var utf8 = literal
        #expect(throws: PostgresTextArray.DecodingError.self) {
            try utf8.withUTF8 { try PostgresTextArray.decode(utf8: $0) }
        }
    }

    @Test func encodingQuotesEveryElementSoDecodingRestoresIt() throws {
        let elements: [String?] = ["", "NULL", nil, #"a"b\c"#, "x,y", " pad ", "{}"]
        let literal = PostgresTextArray.encode(elements)
        // Quotes and backslashes gain a backslash; nil is the bare word NULL.
        #expect(literal == #"{"","NULL",NULL,"a\"b\\c","x,y"," pad ","{}"}"#)
        #expect(try PostgresTextArray.decode(literal) == elements)
    }
}
