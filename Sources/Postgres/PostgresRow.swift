import CLibPQ

/// One row of a `PostgresResult`, with typed accessors that read PostgreSQL's text
/// format, and its binary format for the types they name (`SQLQuery.binaryResults()`:
/// text-like columns, `int2`/`int4`/`int8`, `boolean`, timestamps). Each accessor comes
/// in two forms: `int64(_:)` throws when the value is NULL, `optionalInt64(_:)` returns
/// nil for NULL. Both throw `PostgresError` with code `.decodingFailed` naming the column
/// when the value does not parse, when a binary column's type is not the accessor's, and
/// when the column does not exist.
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
        try textual(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value's text as bytes, unvalidated (nil for NULL): for text passed on as it came,
    /// such as JSON written back unchanged.
    public func optionalBytes(_ column: some PostgresColumnReference) throws -> [UInt8]? {
        try textual(column).map { Array($0) }
    }

    public func int64(_ column: some PostgresColumnReference) throws -> Int64 {
        guard let value = try optionalInt64(column) else { throw null(column, "Int64") }
        return value
    }

    public func optionalInt64(_ column: some PostgresColumnReference) throws -> Int64? {
        guard let (bytes, type) = try value(column) else { return nil }
        return try integer(bytes, type, column)
    }

    /// Microseconds since 1970-01-01 UTC: of a `timestamptz` or `timestamp` column read
    /// in binary format (exact, with `infinity` / `-infinity` as `Int64.max` / `.min`), or
    /// of an integer column holding them. PostgreSQL's binary timestamps count from
    /// 2000-01-01, its infinities are the `int8` extremes.
    public func optionalMicrosecondsSinceEpoch(_ column: some PostgresColumnReference) throws -> Int64? {
        guard let (bytes, type) = try value(column) else { return nil }
        guard type == Self.timestamptzOID || type == Self.timestampOID else { return try integer(bytes, type, column) }
        guard bytes.count == 8 else { throw decodingError(column, "a binary timestamp of \(bytes.count) bytes") }
        let sinceY2K = Int64(bitPattern: Self.bigEndian(bytes))
        if sinceY2K == .max || sinceY2K == .min { return sinceY2K }
        let (value, overflow) = sinceY2K.addingReportingOverflow(Self.microsecondsFrom1970To2000)
        guard !overflow else { throw decodingError(column, "a timestamp out of range") }
        return value
    }

    public func int(_ column: some PostgresColumnReference) throws -> Int {
        guard let value = try optionalInt(column) else { throw null(column, "Int") }
        return value
    }

    public func optionalInt(_ column: some PostgresColumnReference) throws -> Int? {
        guard let (bytes, type) = try value(column) else { return nil }
        if type != 0 { return Int(try binaryInteger(bytes, type, column)) }
        guard let value = Self.parseInteger(bytes).flatMap({ Int(exactly: $0) }) else {
            throw invalid(bytes, column, "Int")
        }
        return value
    }

    public func int32(_ column: some PostgresColumnReference) throws -> Int32 {
        guard let value = try optionalInt32(column) else { throw null(column, "Int32") }
        return value
    }

    public func optionalInt32(_ column: some PostgresColumnReference) throws -> Int32? {
        guard let (bytes, type) = try value(column) else { return nil }
        if type != 0 {
            guard let value = Int32(exactly: try binaryInteger(bytes, type, column)) else {
                throw decodingError(column, "a value out of Int32's range")
            }
            return value
        }
        guard let value = Self.parseInteger(bytes).flatMap({ Int32(exactly: $0) }) else {
            throw invalid(bytes, column, "Int32")
        }
        return value
    }

    /// Reads `boolean` columns, which PostgreSQL writes as `t` / `f`.
    public func bool(_ column: some PostgresColumnReference) throws -> Bool {
        guard let value = try optionalBool(column) else { throw null(column, "Bool") }
        return value
    }

    public func optionalBool(_ column: some PostgresColumnReference) throws -> Bool? {
        guard let (bytes, type) = try value(column) else { return nil }
        if type != 0 {
            guard type == Self.boolOID, bytes.count == 1 else { throw notBinary(type, column, "Bool") }
            return bytes[0] != 0
        }
        // PostgreSQL's own output, `t` or `f`, tested byte by byte: comparing with a
        // string's UTF-8 view was a generic call of some 200 instructions, for every
        // boolean of every row.
        if bytes.count == 1, bytes[0] == UInt8(ascii: "t") { return true }
        if bytes.count == 1, bytes[0] == UInt8(ascii: "f") { return false }
        if bytes.elementsEqual("true".utf8) { return true }
        if bytes.elementsEqual("false".utf8) { return false }
        throw invalid(bytes, column, "Bool")
    }

    /// Reads a one-dimensional array column (`text[]`, …) as its elements' text;
    /// NULL elements are nil.
    public func stringArray(_ column: some PostgresColumnReference) throws -> [String?] {
        guard let value = try optionalStringArray(column) else { throw null(column, "array") }
        return value
    }

    public func optionalStringArray(_ column: some PostgresColumnReference) throws -> [String?]? {
        guard let literal = try textual(column) else { return nil }
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

    /// The value's bytes (valid while the row is), nil for SQL NULL, with the column's
    /// type OID when they are in binary form, 0 when they are text (a text result, or a
    /// text-like column of a binary one). Accessors parse them without a generic result
    /// type: a generic `Value?` here cost every read a runtime metadata lookup, measurable
    /// when a run reads millions of fields.
    private func value(_ column: some PostgresColumnReference) throws
        -> (bytes: UnsafeBufferPointer<UInt8>, binaryType: UInt32)? {
        let position = try position(of: column)
        let (field, row) = (Int32(position), Int32(index))
        if PQgetisnull(result.handle, row, field) == 1 { return nil }
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(PQgetvalue(result.handle, row, field))?.assumingMemoryBound(to: UInt8.self),
            count: Int(PQgetlength(result.handle, row, field)))
        return (bytes, result.binaryTypes.isEmpty ? 0 : result.binaryTypes[position])
    }

    /// The bytes of a column whose bytes are its text (nil for NULL): any column of a
    /// text result, and the text-like columns of a binary one (`jsonb`'s binary form, for
    /// one, starts with a version byte).
    private func textual(_ column: some PostgresColumnReference) throws -> UnsafeBufferPointer<UInt8>? {
        guard let (bytes, type) = try value(column) else { return nil }
        if type != 0 { throw notBinary(type, column, "text") }
        return bytes
    }

    /// An integer value: binary (`type` ≠ 0) or text.
    private func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ type: UInt32,
                         _ column: some PostgresColumnReference) throws -> Int64 {
        if type != 0 { return try binaryInteger(bytes, type, column) }
        guard let value = Self.parseInteger(bytes) else { throw invalid(bytes, column, "Int64") }
        return value
    }

    /// A binary `int2`, `int4` or `int8`.
    private func binaryInteger(_ bytes: UnsafeBufferPointer<UInt8>, _ type: UInt32,
                               _ column: some PostgresColumnReference) throws -> Int64 {
        switch (type, bytes.count) {
        case (Self.int8OID, 8): return Int64(bitPattern: Self.bigEndian(bytes))
        case (Self.int4OID, 4): return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: Self.bigEndian(bytes))))
        case (Self.int2OID, 2): return Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: Self.bigEndian(bytes))))
        default: throw notBinary(type, column, "integer")
        }
    }

    /// The unsigned big-endian integer of up to 8 bytes (network order, as the binary
    /// format sends numbers).
    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private func notBinary(_ type: UInt32, _ column: some PostgresColumnReference, _ typeName: String)
        -> PostgresError {
        decodingError(column, "a binary column of type OID \(type) cannot be read as \(typeName); cast it in the SQL")
    }

    // Type OIDs of pg_type, fixed since PostgreSQL 7.
    static let boolOID: UInt32 = 16, int8OID: UInt32 = 20, int2OID: UInt32 = 21, int4OID: UInt32 = 23
    static let timestampOID: UInt32 = 1114, timestamptzOID: UInt32 = 1184
    /// text, varchar, bpchar, name, unknown, json: their binary form is their text.
    static func isTextLike(_ type: UInt32) -> Bool {
        switch type {
        case 25, 1043, 1042, 19, 705, 114: true
        default: false
        }
    }
    /// 2000-01-01 (PostgreSQL's epoch for binary timestamps) in microseconds since 1970.
    static let microsecondsFrom1970To2000: Int64 = 946_684_800_000_000

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
