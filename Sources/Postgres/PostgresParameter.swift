/// A Swift value that can be sent as a query parameter or a COPY field.
///
/// Every value travels in PostgreSQL's text format and the server infers its type
/// from the statement (write `\(date)::date`, `\(names)::text[]` in an `SQLQuery` where
/// the context is ambiguous). Values are never spliced into SQL text.
///
/// Implementation requirements: return the exact text PostgreSQL's input function for
/// the target type accepts. Other layers conform their own types, e.g.
///
/// ```swift
/// extension LocalDate: PostgresParameter {
///     public var postgresText: String { description }   // "2026-11-21"
/// }
/// ```
public protocol PostgresParameter {
    /// The value in PostgreSQL text format.
    var postgresText: String { get }
}

extension String: PostgresParameter {
    public var postgresText: String { self }
}

extension Int: PostgresParameter {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresParameter {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresParameter {
    public var postgresText: String { String(self) }
}

extension Bool: PostgresParameter {
    public var postgresText: String { self ? "true" : "false" }
}

/// An element type whose Swift arrays are sent as one PostgreSQL value: `[String]` and
/// `[String?]` as a `text[]` literal, `[Int64]` and `[Int]` as `{1,2,3}`. (Swift allows
/// only one conditional conformance of `Array`, so the element type chooses the encoding.)
public protocol PostgresArrayElement {
    /// The text form of an array of these elements.
    static func postgresText(forArray elements: [Self]) -> String
}

extension Array: PostgresParameter where Element: PostgresArrayElement {
    public var postgresText: String { Element.postgresText(forArray: self) }
}

extension String: PostgresArrayElement {
    public static func postgresText(forArray elements: [String]) -> String {
        PostgresTextArray.encode(elements)
    }
}

extension Optional: PostgresArrayElement where Wrapped == String {
    public static func postgresText(forArray elements: [String?]) -> String {
        PostgresTextArray.encode(elements)
    }
}

extension Int64: PostgresArrayElement {
    /// `{1,2,3}`: integers need no quotes. (A batch passes thousands of user ids.)
    public static func postgresText(forArray elements: [Int64]) -> String {
        PostgresPlainArray(elements).postgresText
    }
}

/// Decimal digits, written in place into COPY rows (`PostgresCopyRow.integer`) and arrays.
extension Int64: PostgresPlainText {
    public var postgresTextCount: Int {
        var count = self < 0 ? 2 : 1
        var rest = magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    public func putPostgresText(into text: UnsafeMutableBufferPointer<UInt8>) {
        _ = putDecimal(into: text, endingAt: text.count)
    }

    /// Writes the decimal text so that it ends just before `end`, from the last digit back
    /// (no need to count the digits first), and returns where it starts: at most 20 bytes,
    /// Int64.min's 19 digits and a sign.
    @inline(__always)
    func putDecimal(into text: UnsafeMutableBufferPointer<UInt8>, endingAt end: Int) -> Int {
        var rest = magnitude
        var start = end
        repeat {
            start -= 1
            text[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        if self < 0 {
            start -= 1
            text[start] = UInt8(ascii: "-")
        }
        return start
    }
}

extension Int: PostgresArrayElement {
    public static func postgresText(forArray elements: [Int]) -> String {
        Int64.postgresText(forArray: elements.map(Int64.init))
    }
}

/// A value whose PostgreSQL text is short ASCII that neither COPY nor an array literal
/// escapes or quotes (digits, letters, `-`, `:`, `.`, `+`): dates and timestamps. It is
/// written straight into the bytes being sent, without a String per value: a batch writes
/// tens of thousands of them.
public protocol PostgresPlainText {
    /// How many bytes `putPostgresText` writes.
    var postgresTextCount: Int { get }
    /// Writes the text into `text`, which holds exactly `postgresTextCount` bytes.
    func putPostgresText(into text: UnsafeMutableBufferPointer<UInt8>)
}

/// An array of plain-text values (nil is NULL) sent as one parameter, `{2026-11-22,NULL}`:
/// write `\(PostgresPlainArray(dates))::date[]`. Built in one buffer, with no String per
/// element.
public struct PostgresPlainArray<Element: PostgresPlainText>: PostgresParameter {
    public let postgresText: String

    /// Inlinable so that it is specialized for each element type.
    @inlinable
    public init(_ elements: [Element?]) {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(2 + elements.count * 28)
        for (position, element) in elements.enumerated() {
            if position > 0 { literal.append(UInt8(ascii: ",")) }
            if let element { literal.appendPlainText(element) } else { literal.append(contentsOf: "NULL".utf8) }
        }
        literal.append(UInt8(ascii: "}"))
        postgresText = String(decoding: literal, as: UTF8.self)
    }
}

extension [UInt8] {
    /// Appends `value`'s text. Inlinable so that it is specialized for each value type: as
    /// a generic call it looked up type metadata for every value.
    ///
    /// Written on the stack, then copied in with one `memcpy`: appending zeros to
    /// overwrite (`repeatElement`) went a byte at a time, about 2% of a run's client CPU.
    @inlinable
    mutating func appendPlainText(_ value: some PostgresPlainText) {
        let length = value.postgresTextCount
        guard length <= 40 else {
            let start = count
            append(contentsOf: repeatElement(0, count: length))
            withUnsafeMutableBufferPointer { value.putPostgresText(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { scratch in
            let text = UnsafeMutableBufferPointer(rebasing: scratch[..<length])
            value.putPostgresText(into: text)
            append(contentsOf: UnsafeBufferPointer(text))
        }
    }
}
