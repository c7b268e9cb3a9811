import Testing
@testable import PlanRules

/// Section 5: weekly rate, estimated weeks, the 520-week cap, the target date checks.
struct ProjectionTests {
    static let planDate = LocalDate(year: 2026, month: 3, day: 2)

    @Test func loseWeightCountsOnlyDeficitDays() {
        // g = 2755 − 2255 = 500; rate = 500 / 2200 = 0.22727 → 0.227;
        // weeks = ⌈70 × 220 / 500⌉ = ⌈30.8⌉ = 31; projected = 2026-03-02 + 217 days = 2026-10-05
        let p = WeightProjection(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 750,
                                 tdee: 2755, calories: 2755, deficitPhaseCalories: 2255)
        #expect(p.energyGap == 500)
        #expect(p.weeklyRateThousandthsKg == 227)
        #expect(p.estimatedWeeks == 31)
        #expect(p.projectedDate(from: Self.planDate) == LocalDate(year: 2026, month: 10, day: 5))
        #expect(!p.beyondTenYears)
    }

    @Test func gainMuscleUsesTheWholeGap() {
        // g = 2794 − 2544 = 250; rate = 250 / 1100 = 0.22727 → 0.227; weeks = ⌈100 × 110 / 250⌉ = 44
        let p = WeightProjection(goal: .gainMuscle, reportedTenthsKg: 600, targetTenthsKg: 700,
                                 tdee: 2544, calories: 2794, deficitPhaseCalories: 0)
        #expect(p.weeklyRateThousandthsKg == 227)
        #expect(p.estimatedWeeks == 44)
    }

    @Test func theWeeklyRateIsRoundedToThousandths() {
        // Gain: g = 1350 − 522 = 828; 828 / 1100 = 0.75272… → 0.753.
        // (No rate ever ties: g × 1000 / 1100 = k + ½ needs 20g = 22k + 11, an odd right side.)
        let gain = WeightProjection(goal: .gainMuscle, reportedTenthsKg: 200, targetTenthsKg: 210,
                                    tdee: 522, calories: 1350, deficitPhaseCalories: 0)
        #expect(gain.weeklyRateThousandthsKg == 753)
        // Lose: g = 1; 1 / 2200 = 0.00045… → 0.000 while a projection still exists.
        let slow = WeightProjection(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 819,
                                    tdee: 2001, calories: 2000, deficitPhaseCalories: 2000)
        #expect(slow.weeklyRateThousandthsKg == 0)
        #expect(slow.estimatedWeeks == 220)   // ⌈1 × 220 / 1⌉
    }

    @Test func estimatedWeeksWithAnExactQuotientIsNotRoundedUp() {
        // Δ₁₀ = 50, g = 1100 gain: 50 × 110 / 1100 = 5 exactly
        let p = WeightProjection(goal: .gainMuscle, reportedTenthsKg: 600, targetTenthsKg: 650,
                                 tdee: 1500, calories: 2600, deficitPhaseCalories: 0)
        #expect(p.estimatedWeeks == 5)
    }

    @Test func moreThan520WeeksIsCappedAndFlagged() {
        // 520 weeks exactly: Δ₁₀ × 220 / 500 = 520 ⇔ Δ₁₀ = 1181.8…; Δ₁₀ = 1181 → ⌈519.64⌉ = 520 (kept)
        let kept = WeightProjection(goal: .loseWeight, reportedTenthsKg: 2500, targetTenthsKg: 2500 - 1181,
                                    tdee: 3000, calories: 2500, deficitPhaseCalories: 2500)
        #expect(kept.estimatedWeeks == 520)
        #expect(!kept.beyondTenYears)
        // Δ₁₀ = 1182 → ⌈520.08⌉ = 521: beyond 10 years, no weeks, the rate stays.
        let capped = WeightProjection(goal: .loseWeight, reportedTenthsKg: 2500, targetTenthsKg: 2500 - 1182,
                                      tdee: 3000, calories: 2500, deficitPhaseCalories: 2500)
        #expect(capped.estimatedWeeks == nil)
        #expect(capped.projectedDate(from: Self.planDate) == nil)
        #expect(capped.beyondTenYears)
        #expect(capped.weeklyRateThousandthsKg == 227)
    }

    @Test(arguments: [
        (PrimaryGoal.loseWeight, 820, 850 as Int?),   // target above the reported weight
        (.loseWeight, 820, 820),                      // target reached
        (.gainMuscle, 820, 800),
        (.loseWeight, 820, nil),
        (.maintainWeight, 820, 700),
        (.improveHealth, 820, 700),
    ])
    func noProjectionOffTheGoalsSide(goal: PrimaryGoal, reported: Int, target: Int?) {
        let p = WeightProjection(goal: goal, reportedTenthsKg: reported, targetTenthsKg: target,
                                 tdee: 2755, calories: 3005, deficitPhaseCalories: 2255)
        #expect(p.weeklyRateThousandthsKg == 0)
        #expect(p.estimatedWeeks == nil)
        #expect(!p.beyondTenYears)
    }

    @Test func noProjectionWithoutAPositiveGap() {
        // The floor: g = 1052 − 1200 < 0.
        let p = WeightProjection(goal: .loseWeight, reportedTenthsKg: 450, targetTenthsKg: 420,
                                 tdee: 1052, calories: 1200, deficitPhaseCalories: 1200)
        #expect(p.weeklyRateThousandthsKg == 0)
        #expect(p.estimatedWeeks == nil)
        // g = 0 exactly: 1500 − 1500.
        let zero = WeightProjection(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 750,
                                    tdee: 1500, calories: 1500, deficitPhaseCalories: 1500)
        #expect(zero.estimatedWeeks == nil)
    }

    // MARK: Target date

    @Test func aTargetDateOnOrBeforeThePlanDateHasPassed() {
        for targetDate in [Self.planDate, Self.planDate.adding(days: -30)] {
            let check = TargetDateCheck(goal: .maintainWeight, reportedTenthsKg: 820, targetTenthsKg: nil,
                                        targetDate: targetDate, planDate: Self.planDate)
            #expect(check.targetDatePassed)
            #expect(!check.timelineUnrealistic)
        }
    }

    @Test func losingMoreThanOneKilogramAWeekIsUnrealistic() {
        // Δ₁₀ = 70 (7 kg) in 48 days: 70 × 7 = 490 > 10 × 48 = 480 → unrealistic;
        // recommended = plan date + 7 × ⌈70 / 10⌉ = 49 days = 2026-04-20
        let check = TargetDateCheck(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 750,
                                    targetDate: Self.planDate.adding(days: 48), planDate: Self.planDate)
        #expect(check.timelineUnrealistic)
        #expect(check.recommendedTargetDate == LocalDate(year: 2026, month: 4, day: 20))
        // 49 days: 490 > 490 is false → realistic (exactly 1.0 kg/week).
        let exact = TargetDateCheck(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 750,
                                    targetDate: Self.planDate.adding(days: 49), planDate: Self.planDate)
        #expect(!exact.timelineUnrealistic)
        #expect(exact.recommendedTargetDate == nil)
    }

    @Test func gainingMoreThanHalfAKilogramAWeekIsUnrealistic() {
        // Δ₁₀ = 100 in 60 days: 100 × 14 = 1400 > 600 → unrealistic; 7 × ⌈100 / 5⌉ = 140 days → 2026-07-20
        let check = TargetDateCheck(goal: .gainMuscle, reportedTenthsKg: 600, targetTenthsKg: 700,
                                    targetDate: Self.planDate.adding(days: 60), planDate: Self.planDate)
        #expect(check.timelineUnrealistic)
        #expect(check.recommendedTargetDate == LocalDate(year: 2026, month: 7, day: 20))
        // 140 days: 1400 > 1400 is false.
        let exact = TargetDateCheck(goal: .gainMuscle, reportedTenthsKg: 600, targetTenthsKg: 700,
                                    targetDate: Self.planDate.adding(days: 140), planDate: Self.planDate)
        #expect(!exact.timelineUnrealistic)
    }

    @Test func theRecommendedDateRoundsWeeksUp() {
        // Δ₁₀ = 71, lose, 7 days: 497 > 70; ⌈71 / 10⌉ = 8 weeks = 56 days
        let check = TargetDateCheck(goal: .loseWeight, reportedTenthsKg: 821, targetTenthsKg: 750,
                                    targetDate: Self.planDate.adding(days: 7), planDate: Self.planDate)
        #expect(check.recommendedTargetDate == Self.planDate.adding(days: 56))
    }

    @Test func noTimelineCheckOffTheGoalsSideOrWithoutATarget() {
        let future = Self.planDate.adding(days: 1)
        let wrongSide = TargetDateCheck(goal: .loseWeight, reportedTenthsKg: 820, targetTenthsKg: 900,
                                        targetDate: future, planDate: Self.planDate)
        let noTarget = TargetDateCheck(goal: .gainMuscle, reportedTenthsKg: 820, targetTenthsKg: nil,
                                       targetDate: future, planDate: Self.planDate)
        let maintain = TargetDateCheck(goal: .maintainWeight, reportedTenthsKg: 820, targetTenthsKg: 700,
                                       targetDate: future, planDate: Self.planDate)
        for check in [wrongSide, noTarget, maintain] {
            #expect(!check.timelineUnrealistic && !check.targetDatePassed && check.recommendedTargetDate == nil)
        }
    }
}
