/// Fills the copy templates of a `NotificationPresentation`: numbers written the user's
/// way, water converted for imperial users. Everything is appended to the one string being
/// filled (`CopyTemplate`): no string per number or per unit.
struct LocalizedCopy {
    let presentation: NotificationPresentation
    private let templates: [CopyTemplate]

    init(_ presentation: NotificationPresentation) {
        self.presentation = presentation
        templates = presentation.copy.templates
    }

    /// Writes the value of one placeholder to the string being filled; false when it has
    /// none (the placeholder then stays `{name}`).
    typealias Values = (CopyPlaceholder, inout String) -> Bool

    /// The template `key` with its placeholders filled by `values`.
    func text(_ key: CopyKey, _ values: Values = { _, _ in false }) -> String {
        let template = templates[key.ordinal]
        if let plainText = template.plainText { return plainText }
        var text = ""
        text.reserveCapacity(template.textByteCount + 24 * template.pieces.count)
        append(template, to: &text, values)
        return text
    }

    /// Appends the template `key`, its placeholders filled by `values`.
    func append(_ key: CopyKey, to text: inout String, _ values: Values = { _, _ in false }) {
        append(templates[key.ordinal], to: &text, values)
    }

    private func append(_ template: CopyTemplate, to text: inout String, _ values: Values) {
        for piece in template.pieces {
            switch piece {
            case .text(let literal):
                text.append(literal)
            case .placeholder(let name):
                if !values(name, &text) { text.append("{" + name.rawValue + "}") }
            }
        }
    }

    /// `1975` as the user reads it: `1,975`, `1.975`, `1975`, `1 975`.
    func number(_ value: Int) -> String {
        var text = ""
        appendNumber(value, to: &text)
        return text
    }

    func appendNumber(_ value: Int, to text: inout String) {
        if let numbers = presentation.numbers {
            numbers.append(value, to: &text)
        } else {
            ThousandsGrouping.comma.append(value, to: &text)
        }
    }

    /// A change with its sign always written, `+` or U+2212 as in section 7: `+150`, `−1.500`, `0`.
    func appendSignedNumber(_ value: Int, to text: inout String) {
        if value > 0 { text.append("+") }
        appendNumber(value, to: &text)
    }

    /// `130 g`.
    func appendGrams(_ value: Int, to text: inout String) {
        append(.grams, to: &text) { name, text in
            guard name == .value else { return false }
            appendNumber(value, to: &text)
            return true
        }
    }

    /// Water in the user's units: millilitres, or US fluid ounces for imperial users.
    func appendWater(_ milliliters: Int, to text: inout String) {
        let (unit, value) = switch presentation.units {
        case .metric: (CopyKey.milliliters, milliliters)
        case .imperial: (CopyKey.fluidOunces, Self.fluidOunces(milliliters))
        }
        append(unit, to: &text) { name, text in
            guard name == .value else { return false }
            appendNumber(value, to: &text)
            return true
        }
    }

    /// One changed target: `Calories 1,850 → 1,700 (−150)`, `Protein 140 g → 135 g (−5 g)`.
    /// Imperial water shows the rounded before and after and their difference.
    func appendChange(_ key: CopyKey, before: Int, after: Int, to text: inout String) {
        switch key {
        case .caloriesChange:
            appendChange(key, before, after, unit: nil, to: &text)
        case .proteinChange:
            appendChange(key, before, after, unit: .grams, to: &text)
        default:
            guard presentation.units == .imperial else {
                return appendChange(key, before, after, unit: .milliliters, to: &text)
            }
            appendChange(key, Self.fluidOunces(before), Self.fluidOunces(after), unit: .fluidOunces, to: &text)
        }
    }

    /// `key` with `{before}`, `{after}` and the signed `{delta}`, each in `unit`'s template
    /// when there is one.
    private func appendChange(_ key: CopyKey, _ before: Int, _ after: Int, unit: CopyKey?, to text: inout String) {
        append(key, to: &text) { name, text in
            let value: Int
            let signed: Bool
            switch name {
            case .before: (value, signed) = (before, false)
            case .after: (value, signed) = (after, false)
            case .delta: (value, signed) = (after - before, true)
            default: return false
            }
            func write(_ text: inout String) {
                if signed { appendSignedNumber(value, to: &text) } else { appendNumber(value, to: &text) }
            }
            guard let unit else {
                write(&text)
                return true
            }
            append(unit, to: &text) { name, text in
                guard name == .value else { return false }
                write(&text)
                return true
            }
            return true
        }
    }

    /// US fluid ounces, `round(ml / 29.5735295625)` with halves away from zero, exactly:
    /// 29.5735295625 ml is 295,735,295,625 / 10^10.
    static func fluidOunces(_ milliliters: Int) -> Int {
        roundHalfAwayFromZero(milliliters * 10_000_000_000, over: 295_735_295_625)
    }
}
