import Testing
@testable import PlanRules

/// The explanation shows each step with the plan's own numbers, exact where it matters.
struct ExplanationTests {
    static func plan(weight: Int = 820, height: Int = 1780, gender: Gender = .male, goal: PrimaryGoal = .loseWeight,
                     activity: ActivityLevel = .moderatelyActive, target: Int? = 750,
                     targetDate: LocalDate? = LocalDate(year: 2026, month: 9, day: 1),
                     dateOfBirth: LocalDate = LocalDate(year: 1993, month: 6, day: 15),
                     planDate: LocalDate = LocalDate(year: 2026, month: 3, day: 2)) -> Snapshot {
        let settings = ValidSettings(dateOfBirth: dateOfBirth, gender: gender, heightTenthsCm: height,
                                     weightReportedTenthsKg: weight, primaryGoal: goal, activityLevel: activity,
                                     targetWeightTenthsKg: target, targetDate: targetDate, dietaryPreferences: [],
                                     allergies: [], mealsPerDay: 3, timezone: "UTC", settingsUpdatedAt: nil)
        return computePlan(from: settings, planDate: planDate, reasons: [.created], currentPlan: nil)
    }

    static func calculation(_ name: String, _ explanation: PlanExplanation) -> String? {
        explanation.steps.first { $0.name == name }?.calculation
    }

    @Test func theFirstExampleShowsEveryStepWithExactIntermediates() {
        let explanation = PlanExplanation(snapshot: Self.plan())
        let c = { (name: String) in Self.calculation(name, explanation) }
        // 820 + 1112.5 − 160 + 5 = 1777.5; × 1.55 = 2755.125
        #expect(c("BMR") == "BMR = 10 × 82 kg + 6.25 × 178 cm − 5 × 32 + 5 = 1,777.5 kcal, rounded to 1,778 kcal")
        #expect(c("TDEE") == "TDEE = 1,777.5 × 1.55 = 2,755.125 kcal, rounded to 2,755 kcal")
        #expect(c("Calories") == "Calories = 2,755 − 500 = 2,255 kcal")
        #expect(c("Protein") == "Protein = 82 kg × 2.0 = 164 g")
        #expect(c("Fat") == "Fat = 82 kg × 1.0 = 82 g")
        // 2255 − 656 − 738 = 861; / 4 = 215.25
        #expect(c("Carbs") == "Carbs = (2,255 − 4 × 164 − 9 × 82) / 4 = 215.25 g, rounded to 215 g")
        #expect(c("Water") == "Water = 82 kg × 35 = 2,870 ml")
        #expect(c("MATADOR phase") == "cycle started 2026-03-02; day 0 is deficit day 1 of 14; next switch 2026-03-16")
        // 500 / 2200 = 0.227; ⌈7 × 2200 / 500⌉ = ⌈30.8⌉ = 31 weeks; 2026-03-02 + 217 days
        #expect(c("Projection") == "weekly rate = 500 / 2,200 = 0.227 kg; ⌈7 kg × 2,200 / 500⌉ = 31 weeks, reached about 2026-10-05")
        #expect(c("Flags") == "none")
        #expect(explanation.steps.map(\.name) == ["Age", "Weight used", "BMR", "TDEE", "Calories", "Protein", "Fat",
                                                  "Carbs", "Water", "MATADOR phase", "Projection", "Target date", "Flags"])
    }

    @Test func theFloorAndAFemaleConstantAreNamed() {
        // 45 kg, 150 cm, 70 y female: 450 + 937.5 − 350 − 161 = 876.5 → 877; × 1.2 = 1051.8 → 1052;
        // 1052 − 500 = 552, raised to 1,200.
        let explanation = PlanExplanation(snapshot: Self.plan(weight: 450, height: 1500, gender: .female,
                                                              activity: .sedentary, target: 420, targetDate: nil,
                                                              dateOfBirth: LocalDate(year: 1955, month: 5, day: 1)))
        #expect(Self.calculation("BMR", explanation) == "BMR = 10 × 45 kg + 6.25 × 150 cm − 5 × 70 − 161 = 876.5 kcal, rounded to 877 kcal")
        #expect(Self.calculation("Calories", explanation) == "Calories = 1,052 − 500 = 552, raised to the floor: 1,200 kcal")
        #expect(Self.calculation("Flags", explanation) == "calorie_floor_applied")
    }

    @Test func loweredFatAndOverflowAreExplained() {
        // 180 kg: ⌊(2307 − 4 × 360) / 9⌋ = 96
        let lowered = PlanExplanation(snapshot: Self.plan(weight: 1800, height: 1600, gender: .female, activity: .sedentary,
                                                          target: 900, targetDate: nil,
                                                          dateOfBirth: LocalDate(year: 1966, month: 1, day: 1)))
        #expect(Self.calculation("Fat", lowered) == "Fat = 180 kg × 1.0 = 180 g leaves no room for carbs; lowered to ⌊(2,307 − 4 × 360) / 9⌋ = 96 g")
        #expect(Self.calculation("Carbs", lowered) == "Carbs = 0 g: protein and fat take every calorie")
        // 250 kg: ⌊(3012 − 2000) / 9⌋ = 112 < 125
        let overflow = PlanExplanation(snapshot: Self.plan(weight: 2500, height: 1500, gender: .female, activity: .sedentary,
                                                           target: 1200, targetDate: nil,
                                                           dateOfBirth: LocalDate(year: 1955, month: 5, day: 1)))
        #expect(Self.calculation("Fat", overflow) == "Fat = 250 kg × 1.0 = 250 g leaves no room for carbs;"
                + " ⌊(3,012 − 4 × 500) / 9⌋ = 112 g is below the minimum 250 kg × 0.5 = 125 g, so fat is 125 g (macro overflow)")
        #expect(Self.calculation("Projection", overflow)?.hasSuffix("is more than 520 weeks: not shown") == true)
    }

    @Test func theBasisWeightStepSaysWhenTheBasisStays() {
        var plan = Self.plan()
        plan.inputs.weightReportedTenthsKg = 829
        let explanation = PlanExplanation(snapshot: plan)
        #expect(Self.calculation("Weight used", explanation) == "reported 82.9 kg is within 1.0 kg of the basis: targets use 82 kg")
    }

    @Test func otherGoalsHaveNoCycleOrProjection() {
        let explanation = PlanExplanation(snapshot: Self.plan(goal: .maintainWeight, activity: .extremelyActive,
                                                              target: nil, targetDate: nil))
        // 1777.5 × 1.9 = 3377.25
        #expect(Self.calculation("TDEE", explanation) == "TDEE = 1,777.5 × 1.9 = 3,377.25 kcal, rounded to 3,377 kcal")
        #expect(Self.calculation("Calories", explanation) == "Calories = 3,377 kcal")
        #expect(Self.calculation("MATADOR phase", explanation) == "no cycle for maintain weight")
        #expect(Self.calculation("Target date", explanation) == "no target date")
    }

    @Test func anUnrealisticTargetDateGetsARecommendation() {
        // gain 60 → 70 kg by 2026-05-01: recommended 2026-07-20 (see ProjectionTests)
        let explanation = PlanExplanation(snapshot: Self.plan(weight: 600, gender: .other, goal: .gainMuscle,
                                                              activity: .veryActive, target: 700,
                                                              targetDate: LocalDate(year: 2026, month: 5, day: 1)))
        #expect(Self.calculation("Target date", explanation) == "2026-05-01 is too soon; a safe pace reaches the target by 2026-07-20")
    }

    @Test func renderListsEveryStepUnderAHeading() {
        let explanation = PlanExplanation(snapshot: Self.plan())
        let text = explanation.render()
        #expect(text.hasPrefix("Plan for 2026-03-02 (rules 2026.1)\n"))
        for step in explanation.steps {
            #expect(text.contains("\(step.name): \(step.rule)\n  \(step.calculation)\n"))
        }
    }

    @Test func anOlderRulesVersionIsPointedOut() {
        var plan = Self.plan()
        plan.rulesVersion = "2025.4"
        #expect(PlanExplanation(snapshot: plan).steps.first?.name == "Rules version")
    }

    @Test(arguments: [(142_200, 80, "1,777.5"), (820, 10, "82"), (8_816_400, 3200, "2,755.125"),
                      (1, 3200, "0.0003125"), (-19_880, 80, "−248.5")])
    func exactDecimalsEndWithoutTrailingZeros(numerator: Int, denominator: Int, text: String) {
        #expect(exactDecimal(numerator, over: denominator) == text)
    }

    @Test(arguments: [(0, "0"), (999, "999"), (1000, "1,000"), (1975, "1,975"), (1_234_567, "1,234,567"),
                      (-1500, "−1,500"), (999_999, "999,999"), (Int.max, "9,223,372,036,854,775,807"),
                      (Int.min, "−9,223,372,036,854,775,808")])
    func groupedThousandsUseCommasAndTheMinusSign(value: Int, text: String) {
        #expect(groupedThousands(value) == text)
    }

    @Test(arguments: [(150, "+150"), (-150, "−150"), (-5, "−5"), (0, "0"), (1500, "+1,500")])
    func signedValuesAlwaysShowTheirSign(value: Int, text: String) {
        var bytes: [UInt8] = []
        LocalizedCopy(.unlocalized).appendSignedNumber(value, to: &bytes)
        let signed = String(decoding: bytes, as: UTF8.self)
        #expect(signed == text)
        #expect(!signed.contains("-"))  // never an ASCII hyphen-minus
    }

    @Test func fixedPointKeepsItsDecimals() {
        #expect(fixedPoint(823, decimals: 1) == "82.3")
        #expect(fixedPoint(820, decimals: 1) == "82.0")
        #expect(fixedPoint(227, decimals: 3) == "0.227")
        #expect(fixedPoint(-5, decimals: 1) == "−0.5")
        #expect(fixedPoint(12_345_6, decimals: 1) == "12,345.6")
    }
}
