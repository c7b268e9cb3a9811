/// Computes the whole plan snapshot for one user and plan date (plan-rules.md sections 3,
/// 4 and 5) from valid effective inputs.
///
/// - Parameters:
///   - settings: the effective inputs (the live row, or the current plan's
///     `inputs.settings`).
///   - reasons: why the user is regenerated; written in section 2's order.
///   - currentPlan: the user's latest written plan, which supplies the basis weight
///     (section 3, "Weight used") and the MATADOR cycle start (section 4).
public func computePlan(from settings: ValidSettings, planDate: LocalDate, reasons: [DueReason],
                        currentPlan: Snapshot?) -> Snapshot {
    let years = age(bornOn: settings.dateOfBirth, at: planDate)
    let basis = basisWeightTenthsKg(reported: settings.weightReportedTenthsKg,
                                    currentPlanBasis: currentPlan?.inputs.weightBasisTenthsKg)
    let inputs = Snapshot.Inputs(settings: settings, age: years, weightBasisTenthsKg: basis)
    let targets = PlanTargets(inputs, cycle: matadorCycle(goal: settings.primaryGoal, planDate: planDate,
                                                          currentPlan: currentPlan), planDate: planDate)
    let projection = WeightProjection(goal: settings.primaryGoal, reportedTenthsKg: settings.weightReportedTenthsKg,
                                      targetTenthsKg: settings.targetWeightTenthsKg,
                                      tdee: targets.tdee.rounded, calories: targets.calories.calories,
                                      deficitPhaseCalories: targets.deficitPhaseCalories)
    let targetDate = TargetDateCheck(goal: settings.primaryGoal, reportedTenthsKg: settings.weightReportedTenthsKg,
                                     targetTenthsKg: settings.targetWeightTenthsKg,
                                     targetDate: settings.targetDate, planDate: planDate)

    // Appended in raw-value order, the order section 6 lists them in: no sort needed.
    var flags: [Flag] = []
    if targets.calories.floorApplied { flags.append(.calorieFloorApplied) }
    if targets.macros.macroOverflow { flags.append(.macroOverflow) }
    if projection.beyondTenYears { flags.append(.projectionBeyond10Years) }
    if targetDate.targetDatePassed { flags.append(.targetDatePassed) }
    if targetDate.timelineUnrealistic { flags.append(.timelineUnrealistic) }
    assert(flags == flags.sorted(), "flags appended out of raw-value order")

    return Snapshot(
        rulesVersion: rulesVersion,
        planDate: planDate,
        reasons: inSectionTwoOrder(reasons),
        inputs: inputs,
        targets: targets.snapshotTargets,
        phase: targets.cycle?.phaseInfo(at: planDate)
            ?? Snapshot.PhaseInfo(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil),
        projection: Snapshot.Projection(
            weeklyRateThousandthsKg: projection.weeklyRateThousandthsKg,
            estimatedWeeks: projection.estimatedWeeks,
            projectedDate: projection.projectedDate(from: planDate),
            recommendedTargetDate: targetDate.recommendedTargetDate),
        flags: flags)
}

/// `reasons` distinct and in section 2's order: the array itself when it already is (a
/// plan's one reason, nearly always), so that most users' plans make no new array; else
/// filtered from `allCases` (no set to hash, no sort for one to three reasons).
private func inSectionTwoOrder(_ reasons: [DueReason]) -> [DueReason] {
    if zip(reasons, reasons.dropFirst()).allSatisfy({ $0 < $1 }) { return reasons }
    return DueReason.allCases.filter(reasons.contains)
}
