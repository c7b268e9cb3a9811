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
///   - rulesChange: how the current plan's rules version stands (section 2.1).
func dueReasons(settingsChanged: Bool, currentPlan: Snapshot, lastEvaluated: LocalDate,
                planDate: LocalDate, dateOfBirth: LocalDate, rulesChange: RulesChange) -> [DueReason] {
    var reasons: [DueReason] = []
    if settingsChanged { reasons.append(.settingsChanged) }
    if let cycle = matadorCycle(of: currentPlan), cycle.hasBoundary(after: lastEvaluated, through: planDate) {
        reasons.append(.phaseSwitch)
    }
    if age(bornOn: dateOfBirth, at: planDate) != currentPlan.inputs.age { reasons.append(.birthday) }
    switch rulesChange {
    case .none: break
    case .listed: if !reasons.isEmpty { reasons.append(.rulesChanged) }
    case .due: reasons.append(.rulesChanged)
    }
    return reasons
}

/// Whether `rules_changed` holds for a plan date (plan-rules.md section 2.1).
enum RulesChange {
    /// The current plan was made by the job's version (or is left to a newer one).
    case none
    /// An older version made it: listed when a plan is made for another reason, but not
    /// a reason to make one before the user's rollout midnight.
    case listed
    /// A reason by itself: the plan date's midnight is at or after the rollout start, or an
    /// operator asked for the job's version at once, or ops asked for this user.
    case due
}

/// The current plan's MATADOR cycle, if it has one (`phase` deficit or maintenance).
func matadorCycle(of plan: Snapshot) -> MatadorCycle? {
    guard plan.phase.phase != .none, let start = plan.phase.cycleStartDate else { return nil }
    return MatadorCycle(start: start)
}
