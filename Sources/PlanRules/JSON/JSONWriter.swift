/// Appends compact JSON to a byte buffer, with the number and date conventions of
/// plan-rules.md section 6 in one place: the snapshot, diff and notification encoders
/// all write through it, so equal values always give equal bytes.
///
/// Hand-written rather than `JSONEncoder` because a run encodes up to a million
/// snapshots, the key order is part of the contract, and fixed-point values (tenths,
/// thousandths) must never pass through `Double`.
struct JSONWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Structural text written as is: braces, commas, `"key":` prefixes.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text already in JSON form (a validated number literal).
    mutating func appendText(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style escapes or
    /// `\u00xx` (PostgreSQL's own convention), everything else kept as UTF-8.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (keys' values, zone names, messages) need no escape: one copy.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true {
            for byte in value.utf8 { escaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0..<0x20:
            raw("\\u00")
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        default:
            bytes.append(byte)
        }
    }

    mutating func int(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumWidth: 1)
    }

    /// A value held in tenths with exactly one decimal: `1780` → `178.0`, `-11` → `-1.1`.
    mutating func tenths(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude / 10, minimumWidth: 1)
        bytes.append(UInt8(ascii: "."))
        appendDigits(value.magnitude % 10, minimumWidth: 1)
    }

    /// A value held in thousandths with up to three decimals and at least one, trailing
    /// zeros dropped: `227` → `0.227`, `250` → `0.25`, `0` → `0.0`, `-23` → `-0.023`.
    mutating func thousandths(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude / 1000, minimumWidth: 1)
        bytes.append(UInt8(ascii: "."))
        var fraction = value.magnitude % 1000
        var width = 3
        while width > 1, fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        appendDigits(fraction, minimumWidth: width)
    }

    /// A fixed-point value with `decimals` digits after the point (0: an integer; 1: tenths;
    /// 3: thousandths), with the conventions above.
    mutating func fixedPoint(_ scaled: Int, decimals: Int) {
        switch decimals {
        case 1: tenths(scaled)
        case 3: thousandths(scaled)
        default: int(scaled)
        }
    }

    /// `YYYY-MM-DD` (section 6).
    mutating func date(_ date: LocalDate, quoted: Bool = true) {
        if quoted { bytes.append(UInt8(ascii: "\"")) }
        let (year, month, day) = date.components
        if (0...9999).contains(year) {
            appendDigits(UInt(year), minimumWidth: 4)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt(month), minimumWidth: 2)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt(day), minimumWidth: 2)
        } else {
            bytes.append(contentsOf: date.description.utf8)
        }
        if quoted { bytes.append(UInt8(ascii: "\"")) }
    }

    /// RFC 3339 in UTC with six fractional digits (section 6), as a JSON string.
    /// PostgreSQL's `infinity` / `-infinity` timestamps (`Instant.distantFuture` /
    /// `.distantPast`) have no RFC 3339 form and are written as PostgreSQL writes them.
    mutating func instant(_ instant: Instant) {
        bytes.append(UInt8(ascii: "\""))
        if let (date, secondOfDay, microsecond) = instant.utcParts, (0...9999).contains(date.components.year) {
            self.date(date, quoted: false)
            bytes.append(UInt8(ascii: "T"))
            appendDigits(UInt(secondOfDay / 3600), minimumWidth: 2)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(UInt(secondOfDay / 60 % 60), minimumWidth: 2)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(UInt(secondOfDay % 60), minimumWidth: 2)
            bytes.append(UInt8(ascii: "."))
            appendDigits(UInt(microsecond), minimumWidth: 6)
            bytes.append(UInt8(ascii: "Z"))
        } else {
            bytes.append(contentsOf: rfc3339Text(instant).utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        if let value { write(&self, value) } else { null() }
    }

    /// `["a","b"]`.
    mutating func strings<Values: Sequence<String>>(_ values: Values) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Decimal digits of `value`, left-padded with zeros to `minimumWidth`.
    private mutating func appendDigits(_ value: UInt, minimumWidth: Int) {
        var divisor: UInt = 1
        var width = 1
        while width < minimumWidth || value / divisor >= 10 {
            divisor &*= 10
            width += 1
        }
        while width > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
            width -= 1
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// A timestamp as snapshots write it: RFC 3339 UTC with six fractional digits, or
/// PostgreSQL's `infinity` / `-infinity` for `Instant.distantFuture` / `.distantPast`.
func rfc3339Text(_ instant: Instant) -> String {
    switch instant {
    case .distantFuture: "infinity"
    case .distantPast: "-infinity"
    default: instant.rfc3339
    }
}
