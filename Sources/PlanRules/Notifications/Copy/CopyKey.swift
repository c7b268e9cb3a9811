/// The strings of the notification copy (plan-rules.md sections 7 and 7.1), one table per
/// locale (`CopyTable+enUS.swift`, `+deDE`, `+esES`, `+frFR`), each entry a template with
/// named placeholders in braces, like the app's `Localizable.strings`:
///
/// - `{calories}` a number of calories; `{protein}`, `{water}` a number with its unit
///   (`unit.*` entries);
/// - `{changes}` the changed targets (`targets_updated.*` entries) joined by `list.separator`;
/// - `{before}`, `{after}`, `{delta}` one change (the delta signed: `+`, or U+2212 for −);
/// - `{value}` a number, in a `unit.*` entry.
///
/// The en-US table is section 7's English copy, word for word: a user without a locale
/// gets exactly today's lines (`CopyTests` holds them to it).
public enum CopyKey: String, CaseIterable, Sendable {
    case planCreatedTitle = "plan_created.title"
    case planCreatedBody = "plan_created.body"
    case toMaintenanceTitle = "phase_switch.to_maintenance.title"
    /// Calories go up with the maintenance phase.
    case toMaintenanceBody = "phase_switch.to_maintenance.body"
    /// The calorie floor kept the deficit calories at maintenance level: nothing increases.
    case toMaintenanceAtFloorBody = "phase_switch.to_maintenance.at_floor.body"
    case toDeficitTitle = "phase_switch.to_deficit.title"
    case toDeficitBody = "phase_switch.to_deficit.body"
    case targetsUpdatedTitle = "targets_updated.title"
    case targetsUpdatedBody = "targets_updated.body"
    case caloriesChange = "targets_updated.calories"
    case proteinChange = "targets_updated.protein"
    case waterChange = "targets_updated.water"
    case listSeparator = "list.separator"
    case grams = "unit.grams"
    case milliliters = "unit.milliliters"
    case fluidOunces = "unit.fluid_ounces"
}

/// One locale's copy: a template for every `CopyKey`. Written as a dictionary to read
/// well; the notifications fill `CopyTemplate`s compiled from it once.
public typealias CopyTable = [CopyKey: String]

extension CopyKey {
    /// The key's place in `allCases`: where its compiled template is in a locale's
    /// `CopyLocale.templates` (an array, so a lookup hashes nothing).
    var ordinal: Int {
        switch self {
        case .planCreatedTitle: 0
        case .planCreatedBody: 1
        case .toMaintenanceTitle: 2
        case .toMaintenanceBody: 3
        case .toMaintenanceAtFloorBody: 4
        case .toDeficitTitle: 5
        case .toDeficitBody: 6
        case .targetsUpdatedTitle: 7
        case .targetsUpdatedBody: 8
        case .caloriesChange: 9
        case .proteinChange: 10
        case .waterChange: 11
        case .listSeparator: 12
        case .grams: 13
        case .milliliters: 14
        case .fluidOunces: 15
        }
    }
}

/// The placeholder names the templates use (see `CopyKey`).
enum CopyPlaceholder: String, CaseIterable, Sendable {
    case calories, protein, water, changes, before, after, delta, value
}
