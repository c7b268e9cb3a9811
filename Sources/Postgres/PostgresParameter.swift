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

extension Double: PostgresParameter {
    /// Swift's shortest round-tripping form; PostgreSQL spells the specials its own way.
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return description
    }
}

/// An element type whose Swift arrays are sent as one PostgreSQL value: `[String]` and
/// `[String?]` as a `text[]` literal, `[UInt8]` as `bytea`. (Swift allows only one
/// conditional conformance of `Array`, so the element type chooses the encoding.)
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
        var literal = "{"
        literal.reserveCapacity(2 + elements.count * 8)
        for (position, element) in elements.enumerated() {
            if position > 0 { literal.append(",") }
            literal.append(String(element))
        }
        literal.append("}")
        return literal
    }
}

extension Int: PostgresArrayElement {
    public static func postgresText(forArray elements: [Int]) -> String {
        Int64.postgresText(forArray: elements.map(Int64.init))
    }
}

extension UInt8: PostgresArrayElement {
    /// `bytea` hex format: `\x` followed by two lowercase hex digits per byte.
    public static func postgresText(forArray bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
