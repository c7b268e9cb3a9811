import Foundation
import Synchronization

/// Integers as CLDR writes them for one locale (ICU's data, through Foundation):
/// `1,975` en-US, `1.975` de-DE, `1975` es-ES, `1 975` (U+202F) fr-FR. Negative numbers
/// take the product copy's U+2212 minus sign.
///
/// Made once per locale and kept: creating the locale and its ICU formatter costs far
/// more than formatting (a notification with a fresh formatter per number made
/// evaluation several times slower).
public struct LocaleNumbers: Hashable, Sendable {
    /// ICU's name of the locale, `de_DE`.
    public let identifier: String
    public let locale: Locale
    private let style: IntegerFormatStyle<UInt>

    private init(identifier: String) {
        self.identifier = identifier
        locale = Locale(identifier: identifier)
        style = IntegerFormatStyle<UInt>(locale: locale)
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
        let digits = value.magnitude.formatted(style)
        return value < 0 ? minusSign + digits : digits
    }

    public static func == (lhs: LocaleNumbers, rhs: LocaleNumbers) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
