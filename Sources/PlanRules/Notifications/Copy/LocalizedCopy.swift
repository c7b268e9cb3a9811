/// Fills the copy templates of a `NotificationPresentation`: numbers written the user's
/// way, water converted for imperial users. A filled template is built as UTF-8 bytes,
/// every piece and number appended to one array, and becomes a String once: no string
/// per number or per unit, and none of the flag bookkeeping a String does per append.
struct LocalizedCopy {
    let presentation: NotificationPresentation
    private let templates: [CopyTemplate]

    init(_ presentation: NotificationPresentation) {
        self.presentation = presentation
        templates = presentation.copy.templates
    }

    /// Appends the value of one placeholder to the bytes being filled; false when it has
    /// none (the placeholder then stays `{name}`).
    typealias Values = (CopyPlaceholder, inout [UInt8]) -> Bool

    /// The template `key` with its placeholders filled by `values`.
    func text(_ key: CopyKey, _ values: Values = { _, _ in false }) -> String {
        let template = templates[key.ordinal]
        if let plainText = template.plainText { return plainText }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(template.textByteCount + 24 * template.pieces.count)
        append(template, to: &bytes, values)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the template `key`, its placeholders filled by `values`.
    func append(_ key: CopyKey, to bytes: inout [UInt8], _ values: Values = { _, _ in false }) {
        append(templates[key.ordinal], to: &bytes, values)
    }

    private func append(_ template: CopyTemplate, to bytes: inout [UInt8], _ values: Values) {
        template.text.withUnsafeBufferPointer { text in
            for piece in template.pieces {
                switch piece {
                case .text(let range):
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[range]))
                case .placeholder(let name):
                    if !values(name, &bytes) { bytes.append(contentsOf: "{\(name.rawValue)}".utf8) }
                }
            }
        }
    }

    /// `1975` as the user reads it: `1,975`, `1.975`, `1975`, `1 975`.
    func number(_ value: Int) -> String {
        var bytes: [UInt8] = []
        appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func appendNumber(_ value: Int, to bytes: inout [UInt8]) {
        if let numbers = presentation.numbers {
            numbers.append(value, toUTF8: &bytes)
        } else {
            ThousandsGrouping.comma.append(value, toUTF8: &bytes)
        }
    }

    /// A change with its sign always written, `+` or U+2212 as in section 7: `+150`, `−1.500`, `0`.
    func appendSignedNumber(_ value: Int, to bytes: inout [UInt8]) {
        if value > 0 { bytes.append(UInt8(ascii: "+")) }
        appendNumber(value, to: &bytes)
    }

    /// `130 g`.
    func appendGrams(_ value: Int, to bytes: inout [UInt8]) {
        append(value, in: .grams, to: &bytes)
    }

    /// `value`, signed or not, written into the unit template `unit` (`{value} g`) or bare.
    private func append(_ value: Int, signed: Bool = false, in unit: CopyKey?, to bytes: inout [UInt8]) {
        guard let unit else {
            return signed ? appendSignedNumber(value, to: &bytes) : appendNumber(value, to: &bytes)
        }
        append(unit, to: &bytes) { name, bytes in
            guard name == .value else { return false }
            append(value, signed: signed, in: nil, to: &bytes)
            return true
        }
    }

    /// Water in the user's units: millilitres, or US fluid ounces for imperial users.
    func appendWater(_ milliliters: Int, to bytes: inout [UInt8]) {
        let (unit, value) = switch presentation.units {
        case .metric: (CopyKey.milliliters, milliliters)
        case .imperial: (CopyKey.fluidOunces, Self.fluidOunces(milliliters))
        }
        append(value, in: unit, to: &bytes)
    }

    /// One changed target: `Calories 1,850 → 1,700 (−150)`, `Protein 140 g → 135 g (−5 g)`.
    /// Imperial water shows the rounded before and after and their difference.
    func appendChange(_ key: CopyKey, before: Int, after: Int, to bytes: inout [UInt8]) {
        switch key {
        case .caloriesChange:
            appendChange(key, before, after, unit: nil, to: &bytes)
        case .proteinChange:
            appendChange(key, before, after, unit: .grams, to: &bytes)
        default:
            guard presentation.units == .imperial else {
                return appendChange(key, before, after, unit: .milliliters, to: &bytes)
            }
            appendChange(key, Self.fluidOunces(before), Self.fluidOunces(after), unit: .fluidOunces, to: &bytes)
        }
    }

    /// Section 7.1: false for a water change the user's units show as none, imperial
    /// water that rounds to the same fluid ounces ("80 fl oz → 80 fl oz (0 fl oz)").
    func showsChange(_ key: CopyKey, before: Int, after: Int) -> Bool {
        key != .waterChange || presentation.units == .metric || Self.fluidOunces(before) != Self.fluidOunces(after)
    }

    /// `key` with `{before}`, `{after}` and the signed `{delta}`, each in `unit`'s template
    /// when there is one.
    private func appendChange(_ key: CopyKey, _ before: Int, _ after: Int, unit: CopyKey?, to bytes: inout [UInt8]) {
        append(key, to: &bytes) { name, bytes in
            let value: Int
            let signed: Bool
            switch name {
            case .before: (value, signed) = (before, false)
            case .after: (value, signed) = (after, false)
            case .delta: (value, signed) = (after - before, true)
            default: return false
            }
            append(value, signed: signed, in: unit, to: &bytes)
            return true
        }
    }

    /// US fluid ounces, `round(ml / 29.5735295625)` with halves away from zero, exactly:
    /// 29.5735295625 ml is 295,735,295,625 / 10^10.
    static func fluidOunces(_ milliliters: Int) -> Int {
        roundHalfAwayFromZero(milliliters * 10_000_000_000, over: 295_735_295_625)
    }
}
