import PlanJSON
import Testing
@testable import PlanRules

/// `computePlan`: the whole snapshot, the basis weight and cycle start taken from the
/// current plan, flags sorted, reasons in section 2's order.
struct PlanComputationTests {
    static let planDate = LocalDate(year: 2026, month: 3, day: 2)

    static func settings(goal: PrimaryGoal = .loseWeight, weight: Int = 820, target: Int? = 750,
                         targetDate: LocalDate? = LocalDate(year: 2026, month: 9, day: 1),
                         gender: Gender = .male) -> ValidSettings {
        ValidSettings(dateOfBirth: LocalDate(year: 1993, month: 6, day: 15), gender: gender,
                      heightTenthsCm: 1780, weightReportedTenthsKg: weight, primaryGoal: goal,
                      activityLevel: .moderatelyActive, targetWeightTenthsKg: target, targetDate: targetDate,
                      dietaryPreferences: ["vegan"], allergies: ["soy", "nuts"], mealsPerDay: 4,
                      timezone: "US/Eastern", settingsUpdatedAt: Instant(secondsSinceEpoch: 1_772_355_600))
    }

    @Test func theFirstPlanCopiesTheInputsAndComputesEveryTarget() {
        // 82 kg, 178 cm, 32 y, male, moderately active: BMR 1777.5 → 1778; TDEE 2755.125 → 2755;
        // deficit calories 2255; protein 164; fat 82; carbs (2255 − 656 − 738) / 4 = 215.25 → 215; water 2870.
        let plan = computePlan(from: Self.settings(), planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        #expect(plan.rulesVersion == "2026.1")
        #expect(plan.planDate == Self.planDate)
        #expect(plan.inputs.age == 32)
        #expect(plan.inputs.weightBasisTenthsKg == 820)
        #expect(plan.inputs.dietaryPreferences == ["vegan"])
        #expect(plan.inputs.allergies == ["soy", "nuts"])
        #expect(plan.inputs.mealsPerDay == 4)
        #expect(plan.inputs.timezone == "US/Eastern")
        #expect(plan.inputs.settingsUpdatedAt == Instant(secondsSinceEpoch: 1_772_355_600))
        #expect(plan.targets == Snapshot.Targets(bmr: 1778, tdee: 2755, calories: 2255, proteinG: 164,
                                                 fatG: 82, carbsG: 215, waterMl: 2870))
        #expect(plan.phase == Snapshot.PhaseInfo(phase: .deficit, cycleStartDate: Self.planDate, phaseDay: 0,
                                                 nextPhaseSwitchDate: Self.planDate.adding(days: 14)))
        #expect(plan.flags == [])
    }

    @Test func reasonsAreWrittenInSectionTwosOrder() {
        let plan = computePlan(from: Self.settings(), planDate: Self.planDate,
                               reasons: [.manualRerun, .birthday, .settingsChanged], currentPlan: nil)
        #expect(plan.reasons == [.settingsChanged, .birthday, .manualRerun])
        // Repeats are written once.
        let repeated = computePlan(from: Self.settings(), planDate: Self.planDate,
                                   reasons: [.manualRerun, .created, .manualRerun, .rulesChanged, .created],
                                   currentPlan: nil)
        #expect(repeated.reasons == [.created, .rulesChanged, .manualRerun])
    }

    @Test func flagsAreSortedByName() {
        // 20 kg "other", 50 cm, gain to 500 kg by tomorrow: floor (calories 1350), beyond 10 years
        // (Δ₁₀ = 4800: ⌈4800 × 110 / 828⌉ = 638 > 520) and unrealistic (4800 × 14 > 10 × 1).
        var settings = Self.settings(goal: .gainMuscle, weight: 200, target: 5000,
                                     targetDate: Self.planDate.adding(days: 1), gender: .other)
        settings.heightTenthsCm = 500
        settings.activityLevel = .extremelyActive
        let plan = computePlan(from: settings, planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        #expect(plan.flags == [.calorieFloorApplied, .projectionBeyond10Years, .timelineUnrealistic])
        #expect(plan.flags == plan.flags.sorted())
    }

    @Test func aReportedChangeOfAtMostOneKilogramKeepsTheBasisAndTheTargets() {
        let first = computePlan(from: Self.settings(), planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        let later = Self.planDate.adding(days: 3)
        let next = computePlan(from: Self.settings(weight: 829), planDate: later, reasons: [.settingsChanged],
                               currentPlan: first)
        #expect(next.inputs.weightReportedTenthsKg == 829)
        #expect(next.inputs.weightBasisTenthsKg == 820)
        #expect(next.targets == first.targets)
        // The projection follows the reported weight: Δ₁₀ = 79 → ⌈79 × 220 / 500⌉ = ⌈34.76⌉ = 35.
        #expect(next.projection.estimatedWeeks == 35)
        // The cycle carries on: day 3 of the cycle started on the first plan's date.
        #expect(next.phase.cycleStartDate == Self.planDate)
        #expect(next.phase.phaseDay == 3)
    }

    @Test func aGoalChangeEndsTheCycleAndChangingBackStartsANewOne() {
        let first = computePlan(from: Self.settings(), planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        let maintain = computePlan(from: Self.settings(goal: .maintainWeight), planDate: Self.planDate.adding(days: 5),
                                   reasons: [.settingsChanged], currentPlan: first)
        #expect(maintain.phase == Snapshot.PhaseInfo(phase: .none, cycleStartDate: nil, phaseDay: nil,
                                                     nextPhaseSwitchDate: nil))
        let again = Self.planDate.adding(days: 9)
        let lose = computePlan(from: Self.settings(), planDate: again, reasons: [.settingsChanged],
                               currentPlan: maintain)
        #expect(lose.phase.cycleStartDate == again)
        #expect(lose.phase.phase == .deficit)
    }

    @Test func theMaintenancePhaseDropsTheDeficitButKeepsTheProjection() {
        let first = computePlan(from: Self.settings(), planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        let day14 = computePlan(from: Self.settings(), planDate: Self.planDate.adding(days: 14),
                                reasons: [.phaseSwitch], currentPlan: first)
        // Maintenance: calories = tdee = 2755; carbs (2755 − 656 − 738) / 4 = 340.25 → 340.
        #expect(day14.phase.phase == .maintenance)
        #expect(day14.targets.calories == 2755)
        #expect(day14.targets.carbsG == 340)
        // The gap is the deficit phase's (500): rate 0.227, 31 weeks from day 14.
        #expect(day14.projection.weeklyRateThousandthsKg == 227)
        #expect(day14.projection.estimatedWeeks == 31)
        #expect(day14.projection.projectedDate == Self.planDate.adding(days: 14 + 217))
    }

    @Test func thePlansOwnInputsRegenerateTheSamePlan() {
        // A stored plan's inputs.settings are effective inputs again.
        let first = computePlan(from: Self.settings(weight: 829), planDate: Self.planDate, reasons: [.created],
                                currentPlan: nil)
        let again = computePlan(from: first.inputs.settings, planDate: Self.planDate,
                                reasons: [.created], currentPlan: first)
        #expect(again == first)
    }

    @Test(arguments: [("infinity", false), ("10000-01-01", false), ("-infinity", true), ("0044-03-15 BC", true)])
    func targetDatesBeyondFourDigitYearsStillMakeSnapshotsThatReadBack(targetDate: String, passed: Bool) throws {
        let row = UserSettingsRow(userID: 1, dateOfBirth: "1993-06-15", gender: "male", heightCm: "178.0",
                                  currentWeightKg: "82.0", targetWeightKg: "75.0", primaryGoal: "lose_weight",
                                  targetDate: targetDate, activityLevel: "moderately_active", onboardingCompleted: true)
        let judgement = judge(row, planDate: Self.planDate, zones: TimeTestFixtures.zones(knownNames: ["UTC"]))
        guard case .valid(let settings) = judgement else {
            Issue.record("judged \(judgement)")
            return
        }
        let plan = computePlan(from: settings, planDate: Self.planDate, reasons: [.created], currentPlan: nil)
        #expect(plan.flags.contains(.targetDatePassed) == passed)
        #expect(!plan.flags.contains(.timelineUnrealistic))
        #expect(try Snapshot(json: plan.jsonBytes()) == plan)
    }
}
