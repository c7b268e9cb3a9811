import Testing
@testable import PlanRules

/// Section 4: MATADOR cycle days, blocks, phases, boundaries and the cycle start.
struct MatadorTests {
    static let start = LocalDate(year: 2026, month: 3, day: 2)
    static let cycle = MatadorCycle(start: start)

    @Test(arguments: [
        // (n, phase, phase_day, next switch as n)
        (0, Phase.deficit, 0, 14),
        (13, .deficit, 13, 14),
        (14, .maintenance, 0, 28),     // day 14: calories rise to maintenance
        (27, .maintenance, 13, 28),
        (28, .deficit, 0, 42),         // day 28: back to the deficit
        (41, .deficit, 13, 42),
        (42, .maintenance, 0, 56),
        (365, .deficit, 1, 378),       // ⌊365 / 14⌋ = 26 (even), 365 mod 14 = 1
    ])
    func phaseDayAndNextSwitchAtCycleDay(n: Int, phase: Phase, phaseDay: Int, nextSwitch: Int) {
        let date = Self.start.adding(days: n)
        let info = Self.cycle.phaseInfo(at: date)
        #expect(info.phase == phase)
        #expect(info.phaseDay == phaseDay)
        #expect(info.cycleStartDate == Self.start)
        #expect(info.nextPhaseSwitchDate == Self.start.adding(days: nextSwitch))
    }

    @Test func boundariesAfterEThroughD() {
        // Boundaries at n = 14, 28, 42, …; E = day 13, D = day 14 → one boundary (day 14).
        let day = { (n: Int) in Self.start.adding(days: n) }
        #expect(Self.cycle.boundaries(after: day(13), through: day(14)) == [day(14)])
        #expect(Self.cycle.hasBoundary(after: day(13), through: day(14)))
        // E = day 14 itself: the boundary is not after E.
        #expect(!Self.cycle.hasBoundary(after: day(14), through: day(27)))
        #expect(Self.cycle.boundaries(after: day(14), through: day(27)) == [])
        // Outage from day 10 to day 30: boundaries 14 and 28.
        #expect(Self.cycle.boundaries(after: day(10), through: day(30)) == [day(14), day(28)])
        // Day 0 is no boundary (n > 0): E before the start, D on the start.
        #expect(!Self.cycle.hasBoundary(after: day(-3), through: day(0)))
        #expect(Self.cycle.nextPhaseSwitchDate(after: day(-3)) == day(14))
    }

    static func plan(goal: PrimaryGoal, cycleStart: LocalDate?) -> Snapshot {
        let settings = ValidSettings(dateOfBirth: LocalDate(year: 1993, month: 6, day: 15), gender: .male,
                                     heightTenthsCm: 1780, weightReportedTenthsKg: 820, primaryGoal: goal,
                                     activityLevel: .moderatelyActive, targetWeightTenthsKg: nil, targetDate: nil,
                                     dietaryPreferences: [], allergies: [], mealsPerDay: 3, timezone: "UTC",
                                     settingsUpdatedAt: nil)
        var plan = computePlan(from: settings, planDate: LocalDate(year: 2026, month: 2, day: 1),
                               reasons: [.created], currentPlan: nil)
        plan.phase.cycleStartDate = cycleStart
        return plan
    }

    @Test func theFirstLoseWeightPlanStartsACycle() {
        let planDate = LocalDate(year: 2026, month: 3, day: 10)
        #expect(matadorCycle(goal: .loseWeight, planDate: planDate, currentPlan: nil)?.start == planDate)
    }

    @Test func aLoseWeightPlanAfterAnotherGoalStartsANewCycle() {
        let planDate = LocalDate(year: 2026, month: 3, day: 10)
        let previous = Self.plan(goal: .maintainWeight, cycleStart: nil)
        #expect(matadorCycle(goal: .loseWeight, planDate: planDate, currentPlan: previous)?.start == planDate)
    }

    @Test func aLoseWeightPlanAfterALoseWeightPlanKeepsTheCycle() {
        let planDate = LocalDate(year: 2026, month: 3, day: 10)
        let previous = Self.plan(goal: .loseWeight, cycleStart: Self.start)
        #expect(matadorCycle(goal: .loseWeight, planDate: planDate, currentPlan: previous)?.start == Self.start)
    }

    @Test func otherGoalsHaveNoCycle() {
        let previous = Self.plan(goal: .loseWeight, cycleStart: Self.start)
        for goal in [PrimaryGoal.gainMuscle, .maintainWeight, .improveHealth] {
            #expect(matadorCycle(goal: goal, planDate: Self.start.adding(days: 5), currentPlan: previous) == nil)
        }
    }

    @Test func aCycleStartAfterThePlanDateStartsANewCycle() {
        let previous = Self.plan(goal: .loseWeight, cycleStart: Self.start)
        let earlier = Self.start.adding(days: -1)
        #expect(matadorCycle(goal: .loseWeight, planDate: earlier, currentPlan: previous)?.start == earlier)
    }
}

extension MatadorCycle {
    /// Every boundary after `lastEvaluated` and on or before `planDate`, in order.
    func boundaries(after lastEvaluated: LocalDate, through planDate: LocalDate) -> [LocalDate] {
        let first = nextPhaseSwitchDate(after: lastEvaluated)
        guard first <= planDate else { return [] }
        return stride(from: first.daysSinceEpoch, through: planDate.daysSinceEpoch, by: Self.phaseLength)
            .map(LocalDate.init(daysSinceEpoch:))
    }
}
