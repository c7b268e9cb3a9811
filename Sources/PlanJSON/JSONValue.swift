/// A parsed JSON document, general enough to read a snapshot back from PostgreSQL
/// `jsonb` (which reorders keys and adds spaces) and the spec's `examples.jsonl`.
///
/// Numbers keep their literal text so that no value passes through `Double`: a weight of
/// `82.3` is read as exactly 823 tenths (`JSONNumber.scaled(decimals:)`). Objects keep
/// their members in document order so a value can be written back unchanged.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of `key` in an object (the last one if a key repeats, as `jsonb` keeps),
    /// nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// Compact JSON (no spaces), members in stored order, numbers as written.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

/// One `"key": value` of a JSON object.
public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON number as its literal text (already checked against JSON's number grammar).
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    init(validatedText: String) { self.text = validatedText }

    public var description: String { text }

    /// The value × 10^`decimals` when that is an integer that fits in `Int`, else nil:
    /// `"82.3"` at 1 decimal is 823, `"82"` is 820, `"0.25"` at 3 decimals is 250,
    /// `"82.25"` at 1 decimal is nil (not representable), `"8.23e1"` at 1 decimal is 823.
    public func scaled(decimals: Int) -> Int? {
        var text = text
        return text.withUTF8 { Self.scaled(utf8: $0, decimals: decimals) }
    }

    /// `scaled(decimals:)` of a number's text already checked against JSON's grammar, read
    /// in place (a stored plan's numbers, straight from the JSON text).
    static func scaled(utf8: UnsafeBufferPointer<UInt8>, decimals: Int) -> Int? {
        var negative = false
        var significand = 0
        // Zeros read but not yet multiplied in: trailing zeros (`82.30000`) then cost nothing.
        var pendingZeros = 0
        var fractionDigits = 0
        var exponent = 0
        var exponentNegative = false
        var part = 0  // 0 integer, 1 fraction, 2 exponent
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "-"):
                if part == 2 { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "+"):
                break
            case UInt8(ascii: "."):
                part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                part = 2
            default:
                let digit = Int(byte &- UInt8(ascii: "0"))
                if part == 2 {
                    guard exponent < 100_000 else { return nil }
                    exponent = exponent * 10 + digit
                    continue
                }
                if part == 1 { fractionDigits += 1 }
                if digit == 0 {
                    if significand != 0 { pendingZeros += 1 }
                    continue
                }
                guard let shifted = Self.multiply(significand, byPowerOf10: pendingZeros + 1) else { return nil }
                let (sum, overflow) = shifted.addingReportingOverflow(digit)
                guard !overflow else { return nil }
                significand = sum
                pendingZeros = 0
            }
        }
        if significand == 0 { return 0 }
        // value = significand × 10^shift
        var shift = pendingZeros + (exponentNegative ? -exponent : exponent) - fractionDigits + decimals
        while shift < 0 {
            guard significand % 10 == 0 else { return nil }
            significand /= 10
            shift += 1
        }
        guard let value = Self.multiply(significand, byPowerOf10: shift) else { return nil }
        return negative ? -value : value
    }

    private static func multiply(_ value: Int, byPowerOf10 power: Int) -> Int? {
        if value == 0 { return 0 }
        guard power <= 19 else { return nil }
        var result = value
        for _ in 0..<power {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            result = product
        }
        return result
    }
}

extension JSONWriter {
    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): append(number.text)
        case .string(let text): string(text)
        case .array(let elements):
            raw("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { raw(",") }
                self.value(element)
            }
            raw("]")
        case .object(let members):
            raw("{")
            for (index, member) in members.enumerated() {
                if index > 0 { raw(",") }
                string(member.key)
                raw(":")
                self.value(member.value)
            }
            raw("}")
        }
    }
}
