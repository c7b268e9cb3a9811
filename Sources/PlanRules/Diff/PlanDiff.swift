/// The diff from the previous snapshot to the new one: one entry per leaf under
/// `inputs`, `targets`, `phase`, `projection` whose value changed, plus `flags` and
/// `rules_version` when they changed, sorted by path. `plan_date` and `reasons` are not
/// compared. The first plan (`previous` nil) has an empty diff.
public func planDiff(from previous: Snapshot?, to next: Snapshot) -> [FieldChange] {
    guard let previous else { return [] }
    var diff = LeafComparison(before: previous, after: next)
    diff.compare(.flags, { $0.flags }) { .strings($0.map(\.rawValue)) }
    diff.compare(.rulesVersion, { $0.rulesVersion }, DiffValue.string)
    diff.compare(.dateOfBirth, { $0.inputs.dateOfBirth }, DiffValue.date)
    diff.compare(.age, { $0.inputs.age }, DiffValue.int)
    diff.compare(.gender, { $0.inputs.gender }) { .string($0.rawValue) }
    diff.compare(.heightCm, { $0.inputs.heightTenthsCm }, DiffValue.tenths)
    diff.compare(.weightKgReported, { $0.inputs.weightReportedTenthsKg }, DiffValue.tenths)
    diff.compare(.weightKgBasis, { $0.inputs.weightBasisTenthsKg }, DiffValue.tenths)
    diff.compare(.primaryGoal, { $0.inputs.primaryGoal }) { .string($0.rawValue) }
    diff.compare(.activityLevel, { $0.inputs.activityLevel }) { .string($0.rawValue) }
    diff.compare(.targetWeightKg, { $0.inputs.targetWeightTenthsKg }) { .optional($0, DiffValue.tenths) }
    diff.compare(.targetDate, { $0.inputs.targetDate }) { .optional($0, DiffValue.date) }
    diff.compare(.dietaryPreferences, { $0.inputs.dietaryPreferences }, DiffValue.strings)
    diff.compare(.allergies, { $0.inputs.allergies }, DiffValue.strings)
    diff.compare(.mealsPerDay, { $0.inputs.mealsPerDay }, DiffValue.int)
    diff.compare(.timezone, { $0.inputs.timezone }, DiffValue.string)
    diff.compare(.settingsUpdatedAt, { $0.inputs.settingsUpdatedAt }) { .optional($0, DiffValue.instant) }
    diff.compare(.bmr, { $0.targets.bmr }, DiffValue.int)
    diff.compare(.tdee, { $0.targets.tdee }, DiffValue.int)
    diff.compare(.calories, { $0.targets.calories }, DiffValue.int)
    diff.compare(.proteinG, { $0.targets.proteinG }, DiffValue.int)
    diff.compare(.fatG, { $0.targets.fatG }, DiffValue.int)
    diff.compare(.carbsG, { $0.targets.carbsG }, DiffValue.int)
    diff.compare(.waterMl, { $0.targets.waterMl }, DiffValue.int)
    diff.compare(.phase, { $0.phase.phase }) { .string($0.rawValue) }
    diff.compare(.cycleStartDate, { $0.phase.cycleStartDate }) { .optional($0, DiffValue.date) }
    diff.compare(.phaseDay, { $0.phase.phaseDay }) { .optional($0, DiffValue.int) }
    diff.compare(.nextPhaseSwitchDate, { $0.phase.nextPhaseSwitchDate }) { .optional($0, DiffValue.date) }
    diff.compare(.weeklyRateKg, { $0.projection.weeklyRateThousandthsKg }) {
        .number(scaled: $0, decimals: 3)
    }
    diff.compare(.estimatedWeeks, { $0.projection.estimatedWeeks }) { .optional($0, DiffValue.int) }
    diff.compare(.projectedDate, { $0.projection.projectedDate }) { .optional($0, DiffValue.date) }
    diff.compare(.recommendedTargetDate, { $0.projection.recommendedTargetDate }) {
        .optional($0, DiffValue.date)
    }
    diff.changes.sort { $0.path.rawValue.utf8.lexicographicallyPrecedes($1.path.rawValue.utf8) }
    return diff.changes
}

/// Compares two snapshots leaf by leaf, making a leaf's `DiffValue`s only when it changed:
/// most leaves of most plans do not (building both snapshots' 32 leaves for every
/// regenerated user was most of the diff's cost).
private struct LeafComparison {
    let before: Snapshot
    let after: Snapshot
    var changes: [FieldChange] = []

    /// Section 6 compares numbers by value (`0` and `0.0` are equal). A path is always
    /// the same kind of value at the same precision on both sides (a snapshot holds
    /// tenths of a kg as integers, for one), so the field's own equality is that
    /// comparison; `DiffValue.hasSameValue` does it for values of any precision.
    mutating func compare<Leaf: Equatable>(_ path: PlanField, _ leaf: (Snapshot) -> Leaf, _ value: (Leaf) -> DiffValue) {
        let (old, new) = (leaf(before), leaf(after))
        guard old != new else { return }
        changes.append(FieldChange(path: path, before: value(old), after: value(new)))
    }
}
