/// Where the MATADOR cycle of a new plan starts (plan-rules.md section 4), or nil when
/// the goal is not lose_weight (no cycle; `phase` is `none`).
///
/// The cycle starts on the plan date of the first lose_weight plan after a plan with
/// another goal, or of the first plan; it carries on through weight and other changes.
/// A current plan whose cycle would start after `planDate` (a plan date earlier than the
/// current plan's, which section 2 never schedules) starts a new cycle rather than give
/// a negative cycle day.
public func matadorCycle(goal: PrimaryGoal, planDate: LocalDate, currentPlan: Snapshot?) -> MatadorCycle? {
    guard goal == .loseWeight else { return nil }
    if let current = currentPlan, current.inputs.primaryGoal == .loseWeight,
       let start = current.phase.cycleStartDate, start <= planDate {
        return MatadorCycle(start: start)
    }
    return MatadorCycle(start: planDate)
}
