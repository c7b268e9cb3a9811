/// Section 2's change rule, "A plan is written only if it changed": true when
/// `rules_version`, any input except `settings_updated_at`, any target, `phase.phase`,
/// `phase.cycle_start_date`, `projection.weekly_rate_kg`, `projection.estimated_weeks` or
/// `flags` differs. Fields that move with the plan date alone (`phase_day`,
/// `next_phase_switch_date`, `projected_date`, `recommended_target_date`) and the run's
/// own bookkeeping (`plan_date`, `reasons`, `settings_updated_at`) do not count: a row
/// rewritten with the same values, or a day passing, writes nothing.
public func planChanged(from previous: Snapshot, to next: Snapshot) -> Bool {
    var previousInputs = previous.inputs
    previousInputs.settingsUpdatedAt = next.inputs.settingsUpdatedAt
    return previous.rulesVersion != next.rulesVersion
        || previousInputs != next.inputs
        || previous.targets != next.targets
        || previous.phase.phase != next.phase.phase
        || previous.phase.cycleStartDate != next.phase.cycleStartDate
        || previous.projection.weeklyRateThousandthsKg != next.projection.weeklyRateThousandthsKg
        || previous.projection.estimatedWeeks != next.projection.estimatedWeeks
        || previous.flags != next.flags
}
