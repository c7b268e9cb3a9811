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
        try required(optionalString(column), column, "text")
    }

    public func optionalString(_ column: some PostgresColumnReference) throws -> String? {
        try decode(column, as: "text") { String(decoding: $0, as: UTF8.self) }
    }

    public func int64(_ column: some PostgresColumnReference) throws -> Int64 {
        try required(optionalInt64(column), column, "Int64")
    }

    public func optionalInt64(_ column: some PostgresColumnReference) throws -> Int64? {
        try decode(column, as: "Int64", Self.parseInteger)
    }

    public func int(_ column: some PostgresColumnReference) throws -> Int {
        try required(optionalInt(column), column, "Int")
    }

    public func optionalInt(_ column: some PostgresColumnReference) throws -> Int? {
        try decode(column, as: "Int") { Self.parseInteger($0).flatMap { Int(exactly: $0) } }
    }

    public func int32(_ column: some PostgresColumnReference) throws -> Int32 {
        try required(optionalInt32(column), column, "Int32")
    }

    public func optionalInt32(_ column: some PostgresColumnReference) throws -> Int32? {
        try decode(column, as: "Int32") { Self.parseInteger($0).flatMap { Int32(exactly: $0) } }
    }

    /// Reads `boolean` columns, which PostgreSQL writes as `t` / `f`.
    public func bool(_ column: some PostgresColumnReference) throws -> Bool {
        try required(optionalBool(column), column, "Bool")
    }

    public func optionalBool(_ column: some PostgresColumnReference) throws -> Bool? {
        try decode(column, as: "Bool") { bytes -> Bool? in
            switch String(decoding: bytes, as: UTF8.self) {
            case "t", "true": true
            case "f", "false": false
            default: nil
            }
        }
    }

    /// Reads `double precision`, `real` and `numeric` columns (numeric loses digits
    /// beyond a Double's precision; read it with `string` to keep them all).
    public func double(_ column: some PostgresColumnReference) throws -> Double {
        try required(optionalDouble(column), column, "Double")
    }

    public func optionalDouble(_ column: some PostgresColumnReference) throws -> Double? {
        try decode(column, as: "Double") { bytes -> Double? in
            switch String(decoding: bytes, as: UTF8.self) {
            case "NaN": .nan
            case "Infinity": .infinity
            case "-Infinity": -.infinity
            case let text: Double(text)
            }
        }
    }

    /// Reads `bytea` in the server's default hex output format (`\x0a1b…`).
    public func bytes(_ column: some PostgresColumnReference) throws -> [UInt8] {
        try required(optionalBytes(column), column, "bytea")
    }

    public func optionalBytes(_ column: some PostgresColumnReference) throws -> [UInt8]? {
        try decode(column, as: "bytea (hex format)", Self.parseHexBytea)
    }

    /// Reads a one-dimensional array column (`text[]`, …) as its elements' text;
    /// NULL elements are nil.
    public func stringArray(_ column: some PostgresColumnReference) throws -> [String?] {
        try required(optionalStringArray(column), column, "array")
    }

    public func optionalStringArray(_ column: some PostgresColumnReference) throws -> [String?]? {
        guard let literal = try optionalString(column) else { return nil }
        do {
            return try PostgresTextArray.decode(literal)
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

    /// Hands the raw bytes of the value to `parse`, or returns nil for SQL NULL.
    private func decode<Value>(
        _ column: some PostgresColumnReference,
        as typeName: String,
        _ parse: (UnsafeBufferPointer<UInt8>) -> Value?
    ) throws -> Value? {
        let field = Int32(try position(of: column))
        let row = Int32(index)
        if PQgetisnull(result.handle, row, field) == 1 { return nil }
        let length = Int(PQgetlength(result.handle, row, field))
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(PQgetvalue(result.handle, row, field))?
                .assumingMemoryBound(to: UInt8.self),
            count: length)
        guard let value = parse(bytes) else {
            let text = String(decoding: bytes.prefix(80), as: UTF8.self)
            throw decodingError(column, "\"\(text)\" is not a valid \(typeName)")
        }
        return value
    }

    private func required<Value>(
        _ value: Value?, _ column: some PostgresColumnReference, _ typeName: String
    ) throws -> Value {
        guard let value else {
            throw decodingError(column, "is NULL where a \(typeName) is required")
        }
        return value
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

    static func parseHexBytea(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"),
              bytes.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity((bytes.count - 2) / 2)
        var position = 2
        while position < bytes.count {
            guard let high = nibble(bytes[position]), let low = nibble(bytes[position + 1]) else { return nil }
            decoded.append(high << 4 | low)
            position += 2
        }
        return decoded
    }
}
