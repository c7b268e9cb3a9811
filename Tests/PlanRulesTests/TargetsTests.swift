import Testing
@testable import PlanRules

/// Section 3: age, BMR, TDEE, calories, macros, water and the basis weight, each
/// computed exactly and rounded once, half away from zero.
struct TargetsTests {
    static func date(_ y: Int, _ m: Int, _ d: Int) -> LocalDate { LocalDate(year: y, month: m, day: d) }

    // MARK: Age

    @Test func ageIncrementsOnTheBirthday() {
        let born = Self.date(1993, 6, 15)
        #expect(age(bornOn: born, at: Self.date(2026, 6, 14)) == 32)
        #expect(age(bornOn: born, at: Self.date(2026, 6, 15)) == 33)
        #expect(age(bornOn: born, at: Self.date(1993, 6, 15)) == 0)
    }

    @Test func aTwentyNinthOfFebruaryBirthdayCompletesOnTheFirstOfMarchInCommonYears() {
        let born = Self.date(1996, 2, 29)
        #expect(age(bornOn: born, at: Self.date(2027, 2, 28)) == 30)   // 2027 is common
        #expect(age(bornOn: born, at: Self.date(2027, 3, 1)) == 31)
        #expect(age(bornOn: born, at: Self.date(2028, 2, 28)) == 31)   // 2028 is leap
        #expect(age(bornOn: born, at: Self.date(2028, 2, 29)) == 32)
        #expect(nextBirthday(bornOn: born, after: Self.date(2027, 1, 10)) == Self.date(2027, 3, 1))
        #expect(nextBirthday(bornOn: born, after: Self.date(2027, 3, 1)) == Self.date(2028, 2, 29))
    }

    @Test func nextBirthdayIsTheDayTheAgeChanges() {
        let born = Self.date(1993, 6, 15)
        #expect(nextBirthday(bornOn: born, after: Self.date(2026, 6, 14)) == Self.date(2026, 6, 15))
        #expect(nextBirthday(bornOn: born, after: Self.date(2026, 6, 15)) == Self.date(2027, 6, 15))
    }

    // MARK: BMR

    @Test func bmrLandsExactlyOnAHalfFor178Centimetres() {
        // 10 × 82 + 6.25 × 178 − 5 × 32 + 5 = 820 + 1112.5 − 160 + 5 = 1777.5 → 1778
        let bmr = BMR(weightTenthsKg: 820, heightTenthsCm: 1780, age: 32, gender: .male)
        #expect(bmr.times80 == 142_200)
        #expect(bmr.rounded == 1778)
    }

    @Test func bmrLandsExactlyOnAHalfFor170Point8Centimetres() {
        // 6.25 × 170.8 = 1067.5; 10 × 80 + 1067.5 − 5 × 30 − 161 = 1556.5 → 1557 (female)
        let bmr = BMR(weightTenthsKg: 800, heightTenthsCm: 1708, age: 30, gender: .female)
        #expect(bmr.times80 == 124_520)
        #expect(bmr.rounded == 1557)
    }

    @Test func aNegativeBmrRoundsHalfAwayFromZero() {
        // 10 × 20 + 6.25 × 50 − 5 × 120 − 161 = 200 + 312.5 − 600 − 161 = −248.5 → −249
        #expect(BMR(weightTenthsKg: 200, heightTenthsCm: 500, age: 120, gender: .female).rounded == -249)
    }

    @Test(arguments: [(Gender.male, 5), (.female, -161), (.other, -78)])
    func theGenderConstantOfMifflinStJeor(gender: Gender, s: Int) {
        // 10 × 70 + 6.25 × 160 − 5 × 40 + s = 700 + 1000 − 200 + s = 1500 + s
        #expect(BMR(weightTenthsKg: 700, heightTenthsCm: 1600, age: 40, gender: gender).rounded == 1500 + s)
    }

    // MARK: TDEE

    @Test(arguments: [
        (ActivityLevel.sedentary, 2133), // 1777.5 × 1.2 = 2133
        (.lightlyActive, 2444),          // 1777.5 × 1.375 = 2444.0625
        (.moderatelyActive, 2755),       // 1777.5 × 1.55 = 2755.125
        (.veryActive, 3066),             // 1777.5 × 1.725 = 3066.1875
        (.extremelyActive, 3377),        // 1777.5 × 1.9 = 3377.25
    ])
    func tdeeMultipliesTheUnroundedBmr(level: ActivityLevel, tdee: Int) {
        let bmr = BMR(weightTenthsKg: 820, heightTenthsCm: 1780, age: 32, gender: .male)
        #expect(TDEE(bmr: bmr, activityLevel: level).rounded == tdee)
    }

    @Test func tdeeFromTheUnroundedBmrDiffersFromTheRoundedOne() {
        // Unrounded: 1777.5 × 1.9 = 3377.25 → 3377; from the rounded 1778: 3378.2 → 3378.
        let bmr = BMR(weightTenthsKg: 820, heightTenthsCm: 1780, age: 32, gender: .male)
        #expect(TDEE(bmr: bmr, activityLevel: .extremelyActive).rounded == 3377)
    }

    @Test func tdeeHalvesRoundUpWhereDoublesFallJustShort() {
        // 10 × 20 + 6.25 × 131.2 − 5 × 20 + 5 = 200 + 820 − 100 + 5 = 925; × 1.9 = 1757.5 → 1758.
        // In Double, 6.25 × 131.2 × … gives 1757.4999999999998 and would round to 1757.
        let a = BMR(weightTenthsKg: 200, heightTenthsCm: 1312, age: 20, gender: .male)
        #expect(TDEE(bmr: a, activityLevel: .extremelyActive).rounded == 1758)
        // 200 + 6.25 × 261.4 − 100 + 5 = 1738.75; × 1.2 = 2086.5 → 2087 (Double: 2086.4999999999995).
        let b = BMR(weightTenthsKg: 200, heightTenthsCm: 2614, age: 20, gender: .male)
        #expect(TDEE(bmr: b, activityLevel: .sedentary).times3200 == 2086 * 3200 + 1600)
        #expect(TDEE(bmr: b, activityLevel: .sedentary).rounded == 2087)
    }

    // MARK: Calories

    @Test(arguments: [
        (PrimaryGoal.loseWeight, Phase.deficit, 1500),   // 2000 − 500
        (.loseWeight, .maintenance, 2000),               // 2000 + 0
        (.gainMuscle, .none, 2250),                      // 2000 + 250
        (.maintainWeight, .none, 2000),
        (.improveHealth, .none, 2000),
    ])
    func caloriesAdjustByGoalAndPhase(goal: PrimaryGoal, phase: Phase, calories: Int) {
        let target = CalorieTarget(tdee: 2000, goal: goal, phase: phase, gender: .male)
        #expect(target.calories == calories)
        #expect(!target.floorApplied)
    }

    @Test(arguments: [(Gender.male, 1500), (.female, 1200), (.other, 1350)])
    func theFloorRaisesLowCaloriesAndSetsTheFlag(gender: Gender, floor: Int) {
        // 1000 − 500 = 500 is below every floor.
        let raised = CalorieTarget(tdee: 1000, goal: .loseWeight, phase: .deficit, gender: gender)
        #expect(raised.calories == floor)
        #expect(raised.floorApplied)
        // Exactly on the floor: nothing raised, no flag.
        let equal = CalorieTarget(tdee: floor + 500, goal: .loseWeight, phase: .deficit, gender: gender)
        #expect(equal.calories == floor)
        #expect(!equal.floorApplied)
    }

    // MARK: Macros

    @Test(arguments: [(PrimaryGoal.loseWeight, 164), (.gainMuscle, 180), (.maintainWeight, 131), (.improveHealth, 131)])
    func proteinFollowsTheGoalsRatio(goal: PrimaryGoal, protein: Int) {
        // 82 × 2.0 = 164; 82 × 2.2 = 180.4 → 180; 82 × 1.6 = 131.2 → 131
        #expect(MacroTargets(calories: 3000, weightTenthsKg: 820, goal: goal).proteinG == protein)
    }

    @Test func proteinRoundsAHalfAwayFromZero() {
        // 82.5 × 2.2 = 181.5 → 182; 82.5 × 1.6 = 132 exactly
        #expect(MacroTargets(calories: 3000, weightTenthsKg: 825, goal: .gainMuscle).proteinG == 182)
    }

    @Test func carbsTakeWhatProteinAndFatLeave() {
        // 2255 − 4 × 164 − 9 × 82 = 2255 − 656 − 738 = 861; 861 / 4 = 215.25 → 215
        let macros = MacroTargets(calories: 2255, weightTenthsKg: 820, goal: .loseWeight)
        #expect((macros.proteinG, macros.fatG, macros.carbsG) == (164, 82, 215))
        #expect(!macros.fatLowered && !macros.macroOverflow)
    }

    @Test func carbsRoundAHalfAwayFromZero() {
        // 2256 − 4 × 164 − 9 × 82 = 2256 − 656 − 738 = 862; 862 / 4 = 215.5 → 216
        #expect(MacroTargets(calories: 2256, weightTenthsKg: 820, goal: .loseWeight).carbsG == 216)
    }

    @Test func fatIsLoweredSoCarbsAreZero() {
        // 180 kg lose: protein 360, fat 180; 2307 − 1440 − 1620 < 0;
        // fat = ⌊(2307 − 1440) / 9⌋ = ⌊96.33⌋ = 96 ≥ round(180 × 0.5) = 90
        let macros = MacroTargets(calories: 2307, weightTenthsKg: 1800, goal: .loseWeight)
        #expect((macros.proteinG, macros.fatG, macros.carbsG) == (360, 96, 0))
        #expect(macros.fatLowered && !macros.macroOverflow)
    }

    @Test func macroOverflowKeepsHalfTheWeightAsFat() {
        // 250 kg lose: protein 500; ⌊(3012 − 2000) / 9⌋ = 112 < round(250 × 0.5) = 125
        let macros = MacroTargets(calories: 3012, weightTenthsKg: 2500, goal: .loseWeight)
        #expect((macros.proteinG, macros.fatG, macros.carbsG) == (500, 125, 0))
        #expect(macros.macroOverflow)
    }

    @Test func fatLoweredToExactlyTheMinimumIsNoOverflow() {
        // 100 kg lose: protein 200, minimum fat 50; calories 1250: ⌊(1250 − 800) / 9⌋ = 50 = 50
        let macros = MacroTargets(calories: 1250, weightTenthsKg: 1000, goal: .loseWeight)
        #expect((macros.fatG, macros.carbsG, macros.macroOverflow) == (50, 0, false))
        // One calorie less: ⌊449 / 9⌋ = 49 < 50 → overflow, fat 50
        let over = MacroTargets(calories: 1249, weightTenthsKg: 1000, goal: .loseWeight)
        #expect((over.fatG, over.carbsG, over.macroOverflow) == (50, 0, true))
    }

    @Test func theMinimumFatRoundsHalfAwayFromZero() {
        // 20.1 × 0.5 = 10.05 → 10; 20.5 × 0.5 = 10.25 → 10; 21 × 0.5 = 10.5 → 11
        #expect(MacroTargets.minimumFatG(weightTenthsKg: 201) == 10)
        #expect(MacroTargets.minimumFatG(weightTenthsKg: 210) == 11)
        // round(82.5 × 1.0) = 83
        #expect(MacroTargets.fullFatG(weightTenthsKg: 825) == 83)
    }

    // MARK: Water

    @Test func waterIsThirtyFiveMillilitresPerKilogram() {
        // 82 × 35 = 2870; 82.3 × 35 = 2880.5 → 2881; 20.1 × 35 = 703.5 → 704
        #expect(waterMl(weightTenthsKg: 820) == 2870)
        #expect(waterMl(weightTenthsKg: 823) == 2881)
        #expect(waterMl(weightTenthsKg: 201) == 704)
    }

    // MARK: Basis weight

    @Test(arguments: [
        (829, 820),  // Δ 0.9 kg: basis stays
        (830, 820),  // Δ 1.0 kg exactly: not more than 1.0, basis stays
        (831, 831),  // Δ 1.1 kg: basis moves
        (810, 820),  // −1.0 kg: stays
        (809, 809),  // −1.1 kg: moves
    ])
    func theBasisMovesOnlyForMoreThanOneKilogram(reported: Int, basis: Int) {
        #expect(basisWeightTenthsKg(reported: reported, currentPlanBasis: 820) == basis)
    }

    @Test func withoutACurrentPlanTheBasisIsTheReportedWeight() {
        #expect(basisWeightTenthsKg(reported: 829, currentPlanBasis: nil) == 829)
    }

    // MARK: Exact arithmetic

    @Test(arguments: [(5, 2, 3), (-5, 2, -3), (7, 2, 4), (-7, 2, -4), (4, 3, 1), (-4, 3, -1), (0, 7, 0), (1, 3, 0)])
    func roundingIsHalfAwayFromZero(numerator: Int, denominator: Int, rounded: Int) {
        #expect(roundHalfAwayFromZero(numerator, over: denominator) == rounded)
    }

    @Test func ceilingAndFloorDivisionAreExact() {
        #expect(ceilingDivision(15400, by: 500) == 31)   // 30.8 → 31
        #expect(ceilingDivision(11000, by: 250) == 44)   // exactly 44
        #expect(floorDivision(-1, by: 9) == -1)
        #expect(floorDivision(867, by: 9) == 96)
    }
}
