import Foundation

/// Fills the copy templates of a `NotificationPresentation`: numbers written the user's
/// way, water converted for imperial users.
struct LocalizedCopy {
    let presentation: NotificationPresentation
    let table: CopyTable

    init(_ presentation: NotificationPresentation) {
        self.presentation = presentation
        table = presentation.copy.table
    }

    /// The template `key` with its placeholders filled.
    func text(_ key: CopyKey, _ values: KeyValuePairs<String, String> = [:]) -> String {
        fill(table[key]!, values)
    }

    /// `1975` as the user reads it: `1,975`, `1.975`, `1975`, `1 975`.
    func number(_ value: Int) -> String {
        guard let locale = presentation.numberLocale else { return groupedThousands(value) }
        let digits = value.magnitude.formatted(IntegerFormatStyle<UInt>(locale: locale))
        return value < 0 ? minusSign + digits : digits
    }

    /// A change with its sign always written, `+` or U+2212 as in section 7: `+150`, `−1.500`, `0`.
    func signedNumber(_ value: Int) -> String {
        value > 0 ? "+" + number(value) : number(value)
    }

    /// `130 g`.
    func grams(_ value: Int) -> String { text(.grams, ["value": number(value)]) }

    /// Water in the user's units: millilitres, or US fluid ounces for imperial users.
    func water(_ milliliters: Int) -> String {
        switch presentation.units {
        case .metric: text(.milliliters, ["value": number(milliliters)])
        case .imperial: text(.fluidOunces, ["value": number(Self.fluidOunces(milliliters))])
        }
    }

    /// One changed target: `Calories 1,850 → 1,700 (−150)`, `Protein 140 g → 135 g (−5 g)`.
    /// Imperial water shows the rounded before and after and their difference.
    func change(_ key: CopyKey, before: Int, after: Int) -> String {
        switch key {
        case .caloriesChange:
            return text(key, ["before": number(before), "after": number(after), "delta": signedNumber(after - before)])
        case .proteinChange:
            return change(key, before, after, unit: .grams)
        default:
            guard presentation.units == .imperial else { return change(key, before, after, unit: .milliliters) }
            return change(key, Self.fluidOunces(before), Self.fluidOunces(after), unit: .fluidOunces)
        }
    }

    private func change(_ key: CopyKey, _ before: Int, _ after: Int, unit: CopyKey) -> String {
        func withUnit(_ value: String) -> String { text(unit, ["value": value]) }
        return text(key, ["before": withUnit(number(before)), "after": withUnit(number(after)),
                          "delta": withUnit(signedNumber(after - before))])
    }

    /// US fluid ounces, `round(ml / 29.5735295625)` with halves away from zero, exactly:
    /// 29.5735295625 ml is 295,735,295,625 / 10^10.
    static func fluidOunces(_ milliliters: Int) -> Int {
        let numerator = milliliters * 10_000_000_000
        let denominator = 295_735_295_625
        let rounded = (2 * numerator.magnitude + UInt(denominator)) / (2 * UInt(denominator))
        return milliliters < 0 ? -Int(rounded) : Int(rounded)
    }

    /// `template` with each `{name}` replaced by its value (names not given stay as they are).
    private func fill(_ template: String, _ values: KeyValuePairs<String, String>) -> String {
        guard template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = rest[rest.index(after: open)..<close]
            if let value = values.first(where: { $0.key == name })?.value {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
