import PlanRules

/// A written plan in the words of the app's "Plan Updates" timeline:
/// `Oct 21, 2025 — Plan recalculated — Target 1,950 → 1,975 cal`.
///
/// The event is the first that applies: the first plan; a MATADOR phase switch; new
/// calories; other new targets; a reported weight alone; any other change (preferences,
/// goal date, rules version).
public struct PlanChangeSummary: Hashable, Sendable {
    /// "Plan created", "Maintenance phase started", "Plan recalculated", …
    public var event: String
    /// "Target 1,950 → 1,975 cal · Protein 130 → 128 g", …
    public var details: String

    /// - Parameters:
    ///   - changes: the plan's diff (empty for a first plan).
    ///   - calories, proteinG, waterMl: the plan's targets, for a first plan's details.
    ///   - format: how numbers are written (`--locale`).
    public init(changes: [FieldChange], calories: Int, proteinG: Int, waterMl: Int,
                format: ReadableFormat = .standard) {
        guard !changes.isEmpty else {
            event = "Plan created"
            details = "Target \(format.integer(calories)) cal, \(format.integer(proteinG)) g protein, "
                + "\(format.integer(waterMl)) ml water"
            return
        }
        var parts: [String] = []
        // "Protein 130 → 128 g" when `path` changed.
        @discardableResult func describe(_ path: PlanField, _ name: String, _ unit: String) -> Bool {
            guard let change = changes.first(where: { $0.path == path }) else { return false }
            parts.append("\(name) \(format.text(change.before)) → \(format.text(change.after)) \(unit)")
            return true
        }
        let caloriesChanged = describe(.calories, "Target", "cal")
        describe(.proteinG, "Protein", "g")
        describe(.waterMl, "Water", "ml")
        describe(.weightKgReported, "Weight", "kg")
        if let phase = changes.phaseSwitch {
            event = phase == .maintenance ? "Maintenance phase started" : "Deficit phase started"
        } else if changes.contains(where: \.path.isTarget) {
            event = "Plan recalculated"
        } else if changes.allSatisfy({ $0.path == .weightKgReported }) {
            event = "Weight updated"
        } else {
            event = "Plan updated"
        }
        if !caloriesChanged { parts.append("Target unchanged (\(format.integer(calories)) cal)") }
        // Inputs people set (not the derived ones), flags and the rules version; phase and
        // projection fields follow from those and the date.
        let derived: Set<PlanField> = [.weightKgReported, .weightKgBasis, .settingsUpdatedAt]
        let others = changes.filter {
            ($0.path.isInput && !derived.contains($0.path)) || $0.path == .flags || $0.path == .rulesVersion
        }
        if !others.isEmpty { parts.append("Changed: " + others.map(\.field).joined(separator: ", ")) }
        details = parts.joined(separator: " · ")
    }
}
