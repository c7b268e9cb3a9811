/// A strict RFC 8259 parser: any whitespace and key order, numbers checked against the
/// grammar and kept as text, strings checked for valid UTF-8 and escapes (surrogate pairs
/// joined), nesting limited so hostile input cannot exhaust the stack.
extension JSONValue {
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(bytes: Array(bytes))
        self = try parser.parseDocument()
    }

    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }
}

/// Why a text is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private static let maximumDepth = 256

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        .object(try parseList(closedBy: "}", in: "an object") { parser throws(JSONParseError) in
            guard parser.peek() == UInt8(ascii: "\"") else { throw parser.failure("expected a string key") }
            let key = try parser.parseString()
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: ":") else { throw parser.failure("expected ':' after a key") }
            parser.index += 1
            return JSONMember(key: key, value: try parser.parseValue(depth: depth + 1))
        })
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        .array(try parseList(closedBy: "]", in: "an array") { parser throws(JSONParseError) in
            try parser.parseValue(depth: depth + 1)
        })
    }

    /// The elements of an object or array, separated by commas, up to `close`; the
    /// opening bracket is at `index`.
    private mutating func parseList<Element>(
        closedBy close: Unicode.Scalar, in what: String,
        _ element: (inout JSONParser) throws(JSONParseError) -> Element
    ) throws(JSONParseError) -> [Element] {
        index += 1
        var elements: [Element] = []
        skipWhitespace()
        if peek() == UInt8(ascii: close) {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try element(&self))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: close): index += 1; return elements
            default: throw failure("expected ',' or '\(close)' in \(what)")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        // Fast path: most strings (keys, enum values, dates) have no escapes.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            guard let text = String(validating: bytes[index..<end], as: UTF8.self) else {
                throw failure("string is not valid UTF-8")
            }
            index = end + 1
            return text
        }
        var utf8: [UInt8] = Array(bytes[index..<end])
        index = end
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw failure("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw failure("unescaped control character in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseError) {
        guard let byte = peek() else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate in \\u escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate in \\u escape") }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw failure("unknown escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw failure("bad hex digit in \\u escape")
            }
            value = value << 4 | UInt32(nibble)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            guard skipDigits() > 0 else { throw failure("expected a digit") }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        return JSONNumber(validatedText: String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let matches = literal.withUTF8Buffer { expected in
            index + expected.count <= bytes.count && bytes[index..<index + expected.count].elementsEqual(expected)
        }
        guard matches else { throw failure("unexpected character") }
        index += literal.utf8CodeUnitCount
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
            index += 1
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }
}
