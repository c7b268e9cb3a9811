// The snapshot object of plan-rules.md section 6, written by hand in the section's key
// order: nulls written, heights and weights with one decimal, `weekly_rate_kg` with up
// to three, dates `YYYY-MM-DD`, `settings_updated_at` RFC 3339 UTC with six fractional
// digits, no spaces. Equal snapshots give equal bytes.

extension Snapshot {
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 640)
        writer.snapshot(self)
        return writer.bytes
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

extension JSONWriter {
    mutating func snapshot(_ s: Snapshot) {
        raw("{\"rules_version\":"); string(s.rulesVersion)
        raw(",\"plan_date\":"); date(s.planDate)
        raw(",\"reasons\":[")
        for (index, reason) in s.reasons.enumerated() {
            if index > 0 { raw(",") }
            string(reason.rawValue)
        }
        raw("],\"inputs\":"); inputs(s.inputs)
        raw(",\"targets\":"); targets(s.targets)
        raw(",\"phase\":"); phase(s.phase)
        raw(",\"projection\":"); projection(s.projection)
        raw(",\"flags\":[")
        for (index, flag) in s.flags.enumerated() {
            if index > 0 { raw(",") }
            string(flag.rawValue)
        }
        raw("]}")
    }

    private mutating func inputs(_ i: Snapshot.Inputs) {
        raw("{\"date_of_birth\":"); date(i.dateOfBirth)
        raw(",\"age\":"); int(i.age)
        raw(",\"gender\":"); string(i.gender.rawValue)
        raw(",\"height_cm\":"); tenths(i.heightTenthsCm)
        raw(",\"weight_kg_reported\":"); tenths(i.weightReportedTenthsKg)
        raw(",\"weight_kg_basis\":"); tenths(i.weightBasisTenthsKg)
        raw(",\"primary_goal\":"); string(i.primaryGoal.rawValue)
        raw(",\"activity_level\":"); string(i.activityLevel.rawValue)
        raw(",\"target_weight_kg\":"); optional(i.targetWeightTenthsKg) { $0.tenths($1) }
        raw(",\"target_date\":"); optional(i.targetDate) { $0.date($1) }
        raw(",\"dietary_preferences\":"); strings(i.dietaryPreferences)
        raw(",\"allergies\":"); strings(i.allergies)
        raw(",\"meals_per_day\":"); int(i.mealsPerDay)
        raw(",\"timezone\":"); string(i.timezone)
        raw(",\"settings_updated_at\":"); optional(i.settingsUpdatedAt) { $0.instant($1) }
        raw("}")
    }

    private mutating func targets(_ t: Snapshot.Targets) {
        raw("{\"bmr\":"); int(t.bmr)
        raw(",\"tdee\":"); int(t.tdee)
        raw(",\"calories\":"); int(t.calories)
        raw(",\"protein_g\":"); int(t.proteinG)
        raw(",\"fat_g\":"); int(t.fatG)
        raw(",\"carbs_g\":"); int(t.carbsG)
        raw(",\"water_ml\":"); int(t.waterMl)
        raw("}")
    }

    private mutating func phase(_ p: Snapshot.PhaseInfo) {
        raw("{\"phase\":"); string(p.phase.rawValue)
        raw(",\"cycle_start_date\":"); optional(p.cycleStartDate) { $0.date($1) }
        raw(",\"phase_day\":"); optional(p.phaseDay) { $0.int($1) }
        raw(",\"next_phase_switch_date\":"); optional(p.nextPhaseSwitchDate) { $0.date($1) }
        raw("}")
    }

    private mutating func projection(_ p: Snapshot.Projection) {
        raw("{\"weekly_rate_kg\":"); thousandths(p.weeklyRateThousandthsKg)
        raw(",\"estimated_weeks\":"); optional(p.estimatedWeeks) { $0.int($1) }
        raw(",\"projected_date\":"); optional(p.projectedDate) { $0.date($1) }
        raw(",\"recommended_target_date\":"); optional(p.recommendedTargetDate) { $0.date($1) }
        raw("}")
    }
}
