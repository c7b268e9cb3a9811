import PlanRules

/// Appends compact JSON to a byte buffer, with the number and date conventions of
/// plan-rules.md section 6 in one place: the snapshot, diff and notification encoders
/// all write through it, so equal values always give equal bytes.
///
/// Hand-written rather than `JSONEncoder` because a run encodes up to a million
/// snapshots, the key order is part of the contract, and fixed-point values (tenths,
/// thousandths) must never pass through `Double`.
///
/// The bytes go to memory of its own rather than an `[UInt8]`: an array append checks
/// uniqueness and capacity through the runtime, and a class's stored properties are
/// checked for exclusive access on every use; either made encoding a snapshot (about 800
/// single-byte appends) cost more than evaluating the plan. Noncopyable, so that the
/// memory has exactly one owner, which frees it.
struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// What was written so far.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Appends what was written so far to `bytes` (a batch's buffer of many values).
    func appendWritten(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Text written as is: a validated number literal, or a date or instant beyond the
    /// four-digit years.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// At least `size` bytes of room after what was written, to write in place.
    private mutating func free(_ size: Int) -> UnsafeMutableBufferPointer<UInt8> {
        if capacity - count < size { grow(toHold: size) }
        return UnsafeMutableBufferPointer(start: base + count, count: size)
    }

    private mutating func grow(toHold extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Structural text written as is: braces, commas, `"key":` prefixes.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style escapes or
    /// `\u00xx` (PostgreSQL's own convention), everything else kept as UTF-8.
    mutating func string(_ value: String) {
        append(UInt8(ascii: "\""))
        // Most strings (keys' values, zone names, messages) need no escape: one copy.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            append(contentsOf: utf8)
            return true
        }
        if copied != true {
            for byte in value.utf8 { escaped(byte) }
        }
        append(UInt8(ascii: "\""))
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
            append(Self.hexDigit(byte >> 4))
            append(Self.hexDigit(byte & 0x0F))
        default:
            append(byte)
        }
    }

    mutating func int(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumWidth: 1)
    }

    /// A value held in units of 10^-`decimals` with up to `decimals` digits after the point,
    /// trailing zeros dropped but one kept (0: an integer). Tenths: `1780` → `178.0`,
    /// `-11` → `-1.1`; thousandths: `227` → `0.227`, `250` → `0.25`, `0` → `0.0`.
    mutating func fixedPoint(_ scaled: Int, decimals: Int) {
        guard decimals > 0 else { return int(scaled) }
        if scaled < 0 { append(UInt8(ascii: "-")) }
        var unit: UInt = 1
        for _ in 0..<decimals { unit *= 10 }
        appendDigits(scaled.magnitude / unit, minimumWidth: 1)
        append(UInt8(ascii: "."))
        var fraction = scaled.magnitude % unit
        var width = decimals
        while width > 1, fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        appendDigits(fraction, minimumWidth: width)
    }

    /// `YYYY-MM-DD` (section 6).
    mutating func date(_ date: LocalDate) {
        append(UInt8(ascii: "\""))
        if date.hasFourDigitYear {
            date.putISO(into: free(10), at: 0)
            count += 10
        } else {
            append(date.description)
        }
        append(UInt8(ascii: "\""))
    }

    /// RFC 3339 in UTC with six fractional digits (section 6), as a JSON string.
    /// PostgreSQL's `infinity` / `-infinity` timestamps (`Instant.distantFuture` /
    /// `.distantPast`) have no RFC 3339 form and are written as PostgreSQL writes them.
    mutating func instant(_ instant: Instant) {
        append(UInt8(ascii: "\""))
        if instant.putRFC3339(into: free(27), at: 0) {
            count += 27
        } else {
            append(rfc3339Text(instant))
        }
        append(UInt8(ascii: "\""))
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        if let value { write(&self, value) } else { null() }
    }

    /// `["a","b"]`.
    mutating func strings<Values: Sequence<String>>(_ values: Values) {
        append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            string(value)
        }
        append(UInt8(ascii: "]"))
    }

    /// Decimal digits of `value`, left-padded with zeros to `minimumWidth`, written in place.
    private mutating func appendDigits(_ value: UInt, minimumWidth: Int) {
        let written = free(max(20, minimumWidth)).putDecimal(UInt64(value), minimumWidth: minimumWidth, at: 0)
        count += written
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
