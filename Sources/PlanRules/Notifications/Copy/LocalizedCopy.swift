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
        presentation.numbers?.format(value) ?? groupedThousands(value)
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
        roundHalfAwayFromZero(milliliters * 10_000_000_000, over: 295_735_295_625)
    }

    /// `template` with each `{name}` replaced by its value (names not given stay as they
    /// are). Walks the UTF-8 bytes: a notification fills several templates, and a
    /// character-by-character search cost a third of evaluating a user.
    private func fill(_ template: String, _ values: KeyValuePairs<String, String>) -> String {
        let utf8 = template.utf8
        var result = ""
        result.reserveCapacity(utf8.count + 24)
        var copiedUpTo = utf8.startIndex
        var index = utf8.startIndex
        while let open = utf8[index...].firstIndex(of: UInt8(ascii: "{")) {
            guard let close = utf8[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
            let name = utf8[utf8.index(after: open)..<close]
            index = utf8.index(after: close)
            guard let value = values.first(where: { $0.key.utf8.elementsEqual(name) })?.value else { continue }
            result += template[copiedUpTo..<open]
            result += value
            copiedUpTo = index
        }
        result += template[copiedUpTo...]
        return result
    }
}
