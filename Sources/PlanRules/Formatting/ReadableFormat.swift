import Foundation

/// How `history` and `explain` write numbers and dates for people (`--locale`, plan-rules.md
/// 7.1's CLDR data through Foundation/ICU). `standard` is the en-US text these commands
/// have always printed, by hand (`groupedThousands`, ISO dates, `Oct 21, 2025`); CSV and
/// JSON outputs never use a locale.
public struct ReadableFormat: Hashable, Sendable {
    /// nil: the standard, hand-made en-US text.
    private let numbers: LocaleNumbers?
    private var locale: Locale? { numbers?.locale }

    public static let standard = ReadableFormat(numbers: nil)

    private init(numbers: LocaleNumbers?) { self.numbers = numbers }

    /// The format of a BCP 47 tag (`de-DE`, `de_DE`, any case): ICU's data of that locale,
    /// else of the copy locale of its language, else en-US. Nil when `identifier` is not a
    /// language tag at all.
    public init?(identifier: String) {
        guard let tag = LanguageTag(identifier) else { return nil }
        guard tag.bcp47 != CopyLocale.enUS.rawValue else {
            self = .standard  // en-US is the default: the text as it has always been
            return
        }
        let presentation = NotificationPresentation(locale: identifier, unitSystem: nil)
        numbers = presentation.numbers ?? LocaleNumbers.of(tag.icuIdentifier)
    }

    /// `1975` → `1,975`, `1.975`, `1975`, `1 975`.
    public func integer(_ value: Int) -> String {
        numbers?.format(value) ?? groupedThousands(value)
    }

    /// A value held as an integer count of 10^-`decimals` units, with exactly `decimals`
    /// fraction digits: `82.3`, `82,3`.
    public func fixedPoint(_ scaled: Int, decimals: Int) -> String {
        guard decimals > 0 else { return integer(scaled) }
        var unit = 1
        for _ in 0..<decimals { unit *= 10 }
        let fraction = String(scaled.magnitude % UInt(unit))
        let whole = integer(Int(scaled.magnitude / UInt(unit)))
        return (scaled < 0 ? minusSign : "") + whole + (locale?.decimalSeparator ?? ".")
            + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// A value of a plan's diff: `1,975`, `82.0`, `none` for null or an empty list, a
    /// list's items joined by commas.
    public func text(_ value: DiffValue) -> String {
        switch value {
        case .null: "none"
        case let .number(scaled, decimals): fixedPoint(scaled, decimals: decimals)
        case .string(let text): text
        case .strings(let texts): texts.isEmpty ? "none" : texts.joined(separator: ", ")
        case .instant(let instant): instant.rfc3339
        }
    }

    /// A date in figures: `2026-03-16` (standard), `16.03.2026` (de-DE), `03/16/2026` (en-US).
    public func date(_ date: LocalDate) -> String {
        guard let locale else { return date.description }
        return Self.midnightUTC(date).formatted(
            Self.utc(Date.FormatStyle(locale: locale).year().month(.twoDigits).day(.twoDigits)))
    }

    /// A date as the app's timeline shows it: `Oct 21, 2025`, `21. Okt. 2025`, `21 oct 2025`.
    public func timelineDate(_ date: LocalDate) -> String {
        guard let locale else {
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            return "\(months[date.month - 1]) \(date.day), \(date.year)"
        }
        return Self.midnightUTC(date).formatted(
            Self.utc(Date.FormatStyle(locale: locale).year().month(.abbreviated).day()))
    }

    private static func midnightUTC(_ date: LocalDate) -> Date {
        Date(timeIntervalSince1970: Double(date.daysSinceEpoch) * 86_400)
    }

    private static func utc(_ style: Date.FormatStyle) -> Date.FormatStyle {
        var style = style
        style.timeZone = TimeZone(identifier: "GMT")!
        return style
    }
}
