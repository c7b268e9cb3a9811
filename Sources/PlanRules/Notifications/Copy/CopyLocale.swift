import Foundation
import Synchronization

/// The locales the notification copy is written in (plan-rules.md section 7.1).
public enum CopyLocale: String, CaseIterable, Sendable {
    case enUS = "en-US"
    case deDE = "de-DE"
    case esES = "es-ES"
    case frFR = "fr-FR"

    /// This locale's strings.
    public var table: CopyTable {
        switch self {
        case .enUS: Self.enUSTable
        case .deDE: Self.deDETable
        case .esES: Self.esESTable
        case .frFR: Self.frFRTable
        }
    }

    var language: String { String(rawValue.prefix(2)) }
}

/// How a user's notifications read (section 7.1), from the live row's optional `locale`
/// and `unit_system` columns. Presentation, not a plan input: it is not in the snapshot,
/// and changing it alone writes no plan.
public struct NotificationPresentation: Hashable, Sendable {
    /// The copy's language: the supported locale equal to the user's, else the one of the
    /// same language, else en-US.
    public var copy: CopyLocale
    /// How numbers are written: CLDR (ICU) data of the user's own locale when ICU knows
    /// it, else of the copy locale. Nil: the grouping of section 7's English copy, by hand
    /// (a user without a locale, whose lines stay byte for byte as they were).
    public var numbers: LocaleNumbers?
    public var units: UnitSystem
    /// A `unit_system` value that is neither metric nor imperial (any case): it counts as
    /// NULL; the run logs a warning and counts it, never rejects the row.
    public var unknownUnitSystem: String?

    public enum UnitSystem: String, Sendable {
        case metric, imperial
    }

    /// What a user without a locale gets: section 7 exactly.
    public static let unlocalized = NotificationPresentation(
        copy: .enUS, numbers: nil, units: .metric, unknownUnitSystem: nil)

}

extension NotificationPresentation {
    /// Resolves the row's `locale` and `unit_system` text. A NULL (or blank) locale is the
    /// unlocalized presentation, whatever `unit_system` says.
    public init(locale: String?, unitSystem: String?) {
        guard let locale, !locale.isEmpty else {
            self = .unlocalized
            return
        }
        let key = PresentationKey(locale: locale, unitSystem: unitSystem)
        if let known = Self.resolved.withLock({ $0[key] }) {
            self = known
            return
        }
        self.init(resolving: locale, unitSystem: unitSystem)
        let resolved = self
        Self.resolved.withLock { cache in
            // Rows hold a handful of distinct values; a hostile app could write many.
            if cache.count > 10_000 { cache.removeAll() }
            cache[key] = resolved
        }
    }

    private struct PresentationKey: Hashable {
        var locale: String
        var unitSystem: String?
    }

    /// Resolutions made so far, by the row's values: resolving parses the tag and looks up
    /// ICU's locales, on every notification of a user with a locale.
    private static let resolved = Mutex<[PresentationKey: NotificationPresentation]>([:])

    private init(resolving locale: String, unitSystem: String?) {
        guard let tag = LanguageTag(locale) else {
            self = .unlocalized
            return
        }
        let exact = CopyLocale.allCases.first { $0.rawValue == tag.bcp47 }
        copy = exact ?? CopyLocale.allCases.first { $0.language == tag.language } ?? .enUS
        let own = tag.icuIdentifier
        numbers = LocaleNumbers.of(Self.icuLocales.contains(own) ? own : copy.rawValue.replacingOccurrences(of: "-", with: "_"))
        switch unitSystem?.lowercased() {
        case "metric"?:
            units = .metric
            unknownUnitSystem = nil
        case "imperial"?:
            units = .imperial
            unknownUnitSystem = nil
        case let other:
            units = tag.region == "US" ? .imperial : .metric
            unknownUnitSystem = other.map { _ in unitSystem! }
        }
    }

    /// The locale identifiers ICU has data for (`de_AT`, …), read once.
    private static let icuLocales = Set(Locale.availableIdentifiers)

    /// The `locale` field of the line: the copy locale used; nil for an unlocalized line.
    public var localeField: String? { numbers == nil ? nil : copy.rawValue }
}

/// A BCP 47 tag as the app may store it: `de-DE`, `de_DE`, `DE-de`, `zh-Hant-TW`.
struct LanguageTag {
    var language: String
    var script: String?
    var region: String?

    init?(_ text: String) {
        let subtags = text.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == " " }).map(String.init)
        guard let first = subtags.first, (2...3).contains(first.count), first.allSatisfy(\.isLetter) else {
            return nil
        }
        language = first.lowercased()
        for subtag in subtags.dropFirst() {
            if script == nil, region == nil, subtag.count == 4, subtag.allSatisfy(\.isLetter) {
                script = subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased()
            } else if region == nil, (subtag.count == 2 && subtag.allSatisfy(\.isLetter))
                        || (subtag.count == 3 && subtag.allSatisfy(\.isNumber)) {
                region = subtag.uppercased()
            } else {
                break
            }
        }
    }

    /// `de-DE`, `zh-Hant-TW`.
    var bcp47: String { ([language] + [script, region].compactMap { $0 }).joined(separator: "-") }
    /// `de_DE`, `zh_Hant_TW`: what ICU names its locale data by.
    var icuIdentifier: String { ([language] + [script, region].compactMap { $0 }).joined(separator: "_") }
}
