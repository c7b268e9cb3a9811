/// The reasons of plan-rules.md section 2 that need a current plan (`created` and
/// `manual_rerun` are decided by the caller), in section 2's order.
///
/// - Parameters:
///   - settingsChanged: whether the live row is unseen, before local midnight of the plan
///     date, and complete and valid (the caller judges it: only a row about to be used is
///     judged).
///   - lastEvaluated: E. Reasons are judged against E, snapshots against the current plan.
///   - dateOfBirth: from the effective inputs (section 2: every reason, birthday included,
///     is evaluated on them).
func dueReasons(settingsChanged: Bool, currentPlan: Snapshot, lastEvaluated: LocalDate,
                planDate: LocalDate, dateOfBirth: LocalDate) -> [DueReason] {
    var reasons: [DueReason] = []
    if settingsChanged { reasons.append(.settingsChanged) }
    if let cycle = matadorCycle(of: currentPlan), cycle.hasBoundary(after: lastEvaluated, through: planDate) {
        reasons.append(.phaseSwitch)
    }
    if age(bornOn: dateOfBirth, at: planDate) != currentPlan.inputs.age { reasons.append(.birthday) }
    if currentPlan.rulesVersion != rulesVersion { reasons.append(.rulesChanged) }
    return reasons
}

/// The current plan's MATADOR cycle, if it has one (`phase` deficit or maintenance).
func matadorCycle(of plan: Snapshot) -> MatadorCycle? {
    guard plan.phase.phase != .none, let start = plan.phase.cycleStartDate else { return nil }
    return MatadorCycle(start: start)
}
