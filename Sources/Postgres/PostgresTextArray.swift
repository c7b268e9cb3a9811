/// PostgreSQL's text form of one-dimensional arrays (`{a,"b c",NULL,"x\"y"}`), as sent
/// for `text[]` parameters and as read from array columns.
public enum PostgresTextArray {
    /// Encodes elements as an array literal. Every element is double-quoted (with `"`
    /// and `\` backslash-escaped), so spaces, commas, braces, the word NULL and empty
    /// strings all survive; nil becomes an unquoted NULL.
    public static func encode(_ elements: [String?]) -> String { encode(elements) { $0 } }

    public static func encode(_ elements: [String]) -> String { encode(elements) { $0 } }

    private static func encode<Element>(_ elements: [Element], _ text: (Element) -> String?) -> String {
        // Built as bytes and made a String once: appending to a String element by element
        // cost several times more (a batch sends arrays of thousands of elements).
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(2 + elements.count * 16)
        for (position, element) in elements.enumerated() {
            if position > 0 { literal.append(UInt8(ascii: ",")) }
            if let element = text(element) { appendQuoted(element, to: &literal) } else { literal += "NULL".utf8 }
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// `"element"`, with `"` and `\` backslash-escaped. Byte by byte is safe: neither
    /// byte occurs inside a multi-byte UTF-8 sequence.
    private static func appendQuoted(_ element: String, to literal: inout [UInt8]) {
        literal.append(UInt8(ascii: "\""))
        for byte in element.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
            literal.append(byte)
        }
        literal.append(UInt8(ascii: "\""))
    }

    /// Decodes a one-dimensional array literal with PostgreSQL's rules (array_in):
    /// - an optional dimension prefix such as `[1:3]=` is skipped;
    /// - elements are separated by `,`; whitespace around an element is ignored;
    /// - a double-quoted element keeps everything inside, `\` escapes the next character;
    /// - in an unquoted element `\` also escapes the next character (and protects
    ///   trailing whitespace from trimming);
    /// - an unquoted, unescaped `NULL` in any letter case is a NULL element; `"NULL"` is
    ///   the string NULL.
    ///
    /// - Throws: `DecodingError` describing the first malformed spot, or a nested
    ///   (multidimensional) array, which the job never stores.
    public static func decode(_ literal: String) throws(DecodingError) -> [String?] {
        var literal = literal
        return try literal.withUTF8 { utf8 in Result { () throws(DecodingError) in try decode(utf8: utf8) } }.get()
    }

    /// `decode(_:)` of a literal given as UTF-8 bytes (a field of a result): the common
    /// shape is read straight from the bytes.
    public static func decode(utf8 literal: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> [String?] {
        if let elements = plainElements(literal) { return elements }
        var parser = Parser(Array(String(decoding: literal, as: UTF8.self).unicodeScalars))
        return try parser.parse()
    }

    /// The elements of a literal as PostgreSQL prints most arrays, `{}` or `{a,b}`: no
    /// quotes, escapes, spaces, nested braces or empty elements. Nil for anything else,
    /// which the full parser reads. (Most settings rows hold such arrays; the parser
    /// works on Unicode scalars and costs several times more.)
    static func plainElements(_ utf8: UnsafeBufferPointer<UInt8>) -> [String?]? {
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "{"), utf8.last == UInt8(ascii: "}") else { return nil }
        let inner = UnsafeBufferPointer(rebasing: utf8[1..<utf8.count - 1])
        if inner.isEmpty { return [] }
        guard !inner.contains(where: { byte in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                 UInt8(ascii: " "), 0x09...0x0D: true
            default: false
            }
        }) else { return nil }
        var elements: [String?] = []
        for element in inner.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            if element.isEmpty { return nil }
            let isNull = element.count == 4
                && element.elementsEqual("null".utf8) { $0 | 0x20 == $1 }  // any letter case
            elements.append(isNull ? nil : String(decoding: element, as: UTF8.self))
        }
        return elements
    }

    /// Why a literal is not a one-dimensional array.
    public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        public var reason: String
        public var literal: String
        public var description: String { "malformed array literal \"\(literal)\": \(reason)" }
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        private func failure(_ reason: String) -> DecodingError {
            var literal = ""
            literal.unicodeScalars.append(contentsOf: scalars)
            return DecodingError(reason: reason, literal: literal)
        }

        private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            // array_isspace: space, tab, newline, carriage return, vertical tab, form feed.
            [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(scalar)
        }

        private mutating func skipSpaces() {
            while let scalar = current, Self.isSpace(scalar) { position += 1 }
        }

        mutating func parse() throws(DecodingError) -> [String?] {
            skipSpaces()
            if current == "[" {
                guard let equals = scalars[position...].firstIndex(of: "=") else {
                    throw failure("dimension prefix without '='")
                }
                position = equals + 1
                skipSpaces()
            }
            guard current == "{" else { throw failure("expected '{'") }
            position += 1
            skipSpaces()
            var elements: [String?] = []
            if current == "}" {
                position += 1
            } else {
                while true {
                    elements.append(try element())
                    skipSpaces()
                    guard let separator = current else { throw failure("missing '}'") }
                    position += 1
                    if separator == "}" { break }
                    guard separator == "," else {
                        throw failure("unexpected '\(separator)' after an element")
                    }
                    skipSpaces()
                }
            }
            skipSpaces()
            guard current == nil else { throw failure("text after the closing '}'") }
            return elements
        }

        private mutating func element() throws(DecodingError) -> String? {
            switch current {
            case "\"": return try quotedElement()
            case "{": throw failure("nested arrays (more than one dimension) are not supported")
            case nil: throw failure("missing '}'")
            default: return try unquotedElement()
            }
        }

        private mutating func quotedElement() throws(DecodingError) -> String {
            position += 1
            var text = String.UnicodeScalarView()
            while let scalar = current {
                position += 1
                switch scalar {
                case "\"":
                    return String(text)
                case "\\":
                    guard let escaped = current else { throw failure("'\\' at the end") }
                    text.append(escaped)
                    position += 1
                default:
                    text.append(scalar)
                }
            }
            throw failure("unterminated quoted element")
        }

        private mutating func unquotedElement() throws(DecodingError) -> String? {
            var text = String.UnicodeScalarView()
            // Length of `text` up to and including its last escaped or non-space scalar:
            // trailing whitespace is trimmed unless escaped.
            var keptLength = 0
            var hadEscape = false
            while let scalar = current, scalar != ",", scalar != "}" {
                position += 1
                switch scalar {
                case "\\":
                    guard let escaped = current else { throw failure("'\\' at the end") }
                    text.append(escaped)
                    position += 1
                    hadEscape = true
                    keptLength = text.count
                case "\"", "{":
                    throw failure("unexpected '\(scalar)' inside an unquoted element")
                default:
                    text.append(scalar)
                    if !Self.isSpace(scalar) { keptLength = text.count }
                }
            }
            let value = String(String.UnicodeScalarView(text.prefix(keptLength)))
            if value.isEmpty { throw failure("empty unquoted element") }
            if !hadEscape && value.lowercased() == "null" { return nil }
            return value
        }
    }
}
