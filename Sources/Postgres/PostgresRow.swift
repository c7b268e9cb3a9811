import CLibPQ

/// One row of a `PostgresResult`, with typed accessors that read PostgreSQL's text
/// format. Each accessor comes in two forms: `int64(_:)` throws when the value is NULL,
/// `optionalInt64(_:)` returns nil for NULL. Both throw `PostgresError` with code
/// `.decodingFailed` naming the column when the text does not parse, and when the
/// column does not exist.
public struct PostgresRow {
    /// Keeps the `PGresult` alive as long as the row is.
    let result: PostgresResult
    let index: Int

    public var columns: PostgresColumns { result.columns }

    public func isNull(_ column: some PostgresColumnReference) throws -> Bool {
        PQgetisnull(result.handle, Int32(index), Int32(try position(of: column))) == 1
    }

    public func string(_ column: some PostgresColumnReference) throws -> String {
        guard let value = try optionalString(column) else { throw null(column, "text") }
        return value
    }

    public func optionalString(_ column: some PostgresColumnReference) throws -> String? {
        try text(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value's text as bytes, unvalidated (nil for NULL): for text passed on as it came,
    /// such as JSON written back unchanged.
    public func optionalBytes(_ column: some PostgresColumnReference) throws -> [UInt8]? {
        try text(column).map { Array($0) }
    }

    public func int64(_ column: some PostgresColumnReference) throws -> Int64 {
        guard let value = try optionalInt64(column) else { throw null(column, "Int64") }
        return value
    }

    public func optionalInt64(_ column: some PostgresColumnReference) throws -> Int64? {
        guard let text = try text(column) else { return nil }
        guard let value = Self.parseInteger(text) else { throw invalid(text, column, "Int64") }
        return value
    }

    public func int(_ column: some PostgresColumnReference) throws -> Int {
        guard let value = try optionalInt(column) else { throw null(column, "Int") }
        return value
    }

    public func optionalInt(_ column: some PostgresColumnReference) throws -> Int? {
        guard let text = try text(column) else { return nil }
        guard let value = Self.parseInteger(text).flatMap({ Int(exactly: $0) }) else {
            throw invalid(text, column, "Int")
        }
        return value
    }

    public func int32(_ column: some PostgresColumnReference) throws -> Int32 {
        guard let value = try optionalInt32(column) else { throw null(column, "Int32") }
        return value
    }

    public func optionalInt32(_ column: some PostgresColumnReference) throws -> Int32? {
        guard let text = try text(column) else { return nil }
        guard let value = Self.parseInteger(text).flatMap({ Int32(exactly: $0) }) else {
            throw invalid(text, column, "Int32")
        }
        return value
    }

    /// Reads `boolean` columns, which PostgreSQL writes as `t` / `f`.
    public func bool(_ column: some PostgresColumnReference) throws -> Bool {
        guard let value = try optionalBool(column) else { throw null(column, "Bool") }
        return value
    }

    public func optionalBool(_ column: some PostgresColumnReference) throws -> Bool? {
        guard let text = try text(column) else { return nil }
        // PostgreSQL's own output, `t` or `f`, tested byte by byte: comparing with a
        // string's UTF-8 view was a generic call of some 200 instructions, for every
        // boolean of every row.
        if text.count == 1, text[0] == UInt8(ascii: "t") { return true }
        if text.count == 1, text[0] == UInt8(ascii: "f") { return false }
        if text.elementsEqual("true".utf8) { return true }
        if text.elementsEqual("false".utf8) { return false }
        throw invalid(text, column, "Bool")
    }

    /// Reads a one-dimensional array column (`text[]`, …) as its elements' text;
    /// NULL elements are nil.
    public func stringArray(_ column: some PostgresColumnReference) throws -> [String?] {
        guard let value = try optionalStringArray(column) else { throw null(column, "array") }
        return value
    }

    public func optionalStringArray(_ column: some PostgresColumnReference) throws -> [String?]? {
        guard let literal = try text(column) else { return nil }
        do {
            return try PostgresTextArray.decode(utf8: literal)
        } catch {
            throw decodingError(column, "\(error)")
        }
    }

    // MARK: - Decoding machinery

    private func position(of column: some PostgresColumnReference) throws -> Int {
        guard let position = column.columnIndex(in: result.columns) else {
            throw decodingError(
                column, "no such column; the result has \(result.columns.names)")
        }
        return position
    }

    /// The raw text of the value (valid while the row is), nil for SQL NULL. Accessors
    /// parse it without a generic result type: a generic `Value?` here cost every read a
    /// runtime metadata lookup, measurable when a run reads millions of fields.
    private func text(_ column: some PostgresColumnReference) throws -> UnsafeBufferPointer<UInt8>? {
        let field = Int32(try position(of: column))
        let row = Int32(index)
        if PQgetisnull(result.handle, row, field) == 1 { return nil }
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(PQgetvalue(result.handle, row, field))?.assumingMemoryBound(to: UInt8.self),
            count: Int(PQgetlength(result.handle, row, field)))
    }

    private func invalid(_ text: UnsafeBufferPointer<UInt8>, _ column: some PostgresColumnReference,
                         _ typeName: String) -> PostgresError {
        decodingError(column, "\"\(String(decoding: text.prefix(80), as: UTF8.self))\" is not a valid \(typeName)")
    }

    /// A NULL where a value is required. (Not a generic `required<Value>(_:)`: that
    /// looked up type metadata on every read.)
    private func null(_ column: some PostgresColumnReference, _ typeName: String) -> PostgresError {
        decodingError(column, "is NULL where a \(typeName) is required")
    }

    private func decodingError(_ column: some PostgresColumnReference, _ reason: String) -> PostgresError {
        PostgresError(
            code: .decodingFailed, purpose: result.purpose,
            message: "row \(index), column \(column.columnDescription): \(reason)")
    }

    /// Parses a decimal integer without building a String (hot in streamed reads).
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            // Accumulate negatively so Int64.min parses too.
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.subtractingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            value = next
        }
        if negative { return value }
        let (positive, overflow) = (0 as Int64).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }
}
