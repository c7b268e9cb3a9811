/// The diff from the previous snapshot to the new one: one entry per leaf under
/// `inputs`, `targets`, `phase`, `projection` whose value changed, plus `flags` and
/// `rules_version` when they changed, sorted by path. `plan_date` and `reasons` are not
/// compared. The first plan (`previous` nil) has an empty diff.
public func planDiff(from previous: Snapshot?, to next: Snapshot) -> [FieldChange] {
    guard let previous else { return [] }
    let before = diffLeaves(of: previous)
    let after = diffLeaves(of: next)
    var entries: [FieldChange] = []
    for index in before.indices where !before[index].value.hasSameValue(as: after[index].value) {
        entries.append(FieldChange(path: before[index].path, before: before[index].value, after: after[index].value))
    }
    entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    return entries
}

/// Every compared leaf of a snapshot, always in the same order.
func diffLeaves(of s: Snapshot) -> [(path: String, value: DiffValue)] {
    let i = s.inputs, t = s.targets, p = s.phase, j = s.projection
    return [
        ("flags", .strings(s.flags.map(\.rawValue))),
        ("rules_version", .string(s.rulesVersion)),
        ("inputs.date_of_birth", .date(i.dateOfBirth)),
        ("inputs.age", .int(i.age)),
        ("inputs.gender", .string(i.gender.rawValue)),
        ("inputs.height_cm", .tenths(i.heightTenthsCm)),
        ("inputs.weight_kg_reported", .tenths(i.weightReportedTenthsKg)),
        ("inputs.weight_kg_basis", .tenths(i.weightBasisTenthsKg)),
        ("inputs.primary_goal", .string(i.primaryGoal.rawValue)),
        ("inputs.activity_level", .string(i.activityLevel.rawValue)),
        ("inputs.target_weight_kg", .optional(i.targetWeightTenthsKg, DiffValue.tenths)),
        ("inputs.target_date", .optional(i.targetDate, DiffValue.date)),
        ("inputs.dietary_preferences", .strings(i.dietaryPreferences)),
        ("inputs.allergies", .strings(i.allergies)),
        ("inputs.meals_per_day", .int(i.mealsPerDay)),
        ("inputs.timezone", .string(i.timezone)),
        ("inputs.settings_updated_at", .optional(i.settingsUpdatedAt, DiffValue.instant)),
        ("targets.bmr", .int(t.bmr)),
        ("targets.tdee", .int(t.tdee)),
        ("targets.calories", .int(t.calories)),
        ("targets.protein_g", .int(t.proteinG)),
        ("targets.fat_g", .int(t.fatG)),
        ("targets.carbs_g", .int(t.carbsG)),
        ("targets.water_ml", .int(t.waterMl)),
        ("phase.phase", .string(p.phase.rawValue)),
        ("phase.cycle_start_date", .optional(p.cycleStartDate, DiffValue.date)),
        ("phase.phase_day", .optional(p.phaseDay, DiffValue.int)),
        ("phase.next_phase_switch_date", .optional(p.nextPhaseSwitchDate, DiffValue.date)),
        ("projection.weekly_rate_kg", .number(scaled: j.weeklyRateThousandthsKg, decimals: 3)),
        ("projection.estimated_weeks", .optional(j.estimatedWeeks, DiffValue.int)),
        ("projection.projected_date", .optional(j.projectedDate, DiffValue.date)),
        ("projection.recommended_target_date", .optional(j.recommendedTargetDate, DiffValue.date)),
    ]
}
