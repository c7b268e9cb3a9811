import Foundation
import Synchronization

/// Integers as CLDR writes them for one locale (ICU's data, through Foundation):
/// `1,975` en-US, `1.975` de-DE, `1975` es-ES, `1 975` (U+202F) fr-FR. Negative numbers
/// take the product copy's U+2212 minus sign.
///
/// Made once per locale and kept: creating the locale and its ICU formatter costs far
/// more than formatting (a notification with a fresh formatter per number made
/// evaluation several times slower). A class, so that the presentation holding it copies
/// a reference, not the formatter's many fields, for every notification.
public final class LocaleNumbers: Hashable, Sendable {
    /// ICU's name of the locale, `de_DE`.
    public let identifier: String
    public let locale: Locale
    private let style: IntegerFormatStyle<UInt>
    /// The locale's thousands grouping as read from ICU once — its separator, and the
    /// fewest digits that are grouped (4, or 5 where CLDR leaves 4-digit numbers alone,
    /// as Spanish does) — when grouping by threes with it reproduces ICU's output for
    /// every sample; nil otherwise (then ICU formats each number). Formatting through
    /// ICU cost a tenth of a first run's CPU: a notification writes up to a dozen numbers.
    private let grouping: ThousandsGrouping?

    private init(identifier: String) {
        self.identifier = identifier
        locale = Locale(identifier: identifier)
        style = IntegerFormatStyle<UInt>(locale: locale)
        grouping = Self.threeDigitGrouping(of: style)
    }

    private static func threeDigitGrouping(of style: IntegerFormatStyle<UInt>) -> ThousandsGrouping? {
        let million = UInt(1_234_567).formatted(style)
        guard million.hasPrefix("1"), million.hasSuffix("567") else { return nil }
        let separators = million.dropFirst().dropLast(3)
        guard separators.count % 2 == 1 else { return nil }
        let separator = String(separators.prefix((separators.count - 3) / 2))
        let grouping = ThousandsGrouping(separator: separator, fewestDigits: UInt(1234).formatted(style) == "1234" ? 5 : 4)
        let samples: [Int] = [0, 7, 12, 999, 1000, 1234, 9999, 10_000, 12_345, 99_999, 100_000, 123_456,
                              999_999, 1_000_000, 12_345_678, 123_456_789, 1_234_567_890]
        let reproduced = samples.allSatisfy { sample in
            var grouped = ""
            grouping.append(sample, to: &grouped)
            return grouped == UInt(sample).formatted(style)
        }
        return reproduced ? grouping : nil
    }

    private static let made = Mutex<[String: LocaleNumbers]>([:])

    /// The numbers of the ICU locale `identifier` (`de_AT`).
    public static func of(_ identifier: String) -> LocaleNumbers {
        made.withLock { made in
            if let known = made[identifier] { return known }
            let numbers = LocaleNumbers(identifier: identifier)
            made[identifier] = numbers
            return numbers
        }
    }

    public func format(_ value: Int) -> String {
        var bytes: [UInt8] = []
        append(value, toUTF8: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of `value` as `format` writes it.
    func append(_ value: Int, toUTF8 bytes: inout [UInt8]) {
        if let grouping {
            grouping.append(value, toUTF8: &bytes)
        } else {
            if value < 0 { bytes.append(contentsOf: minusSign.utf8) }
            bytes.append(contentsOf: value.magnitude.formatted(style).utf8)
        }
    }

    public static func == (lhs: LocaleNumbers, rhs: LocaleNumbers) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
