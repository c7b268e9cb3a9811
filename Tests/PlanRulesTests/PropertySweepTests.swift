import Testing
@testable import PlanRules

/// Invariants of sections 3 and 4 over thousands of seeded random valid profiles. The
/// seed is fixed, so a failure reproduces; the profile is in the failure message.
struct PropertySweepTests {
    /// SplitMix64: small, fast, and the same sequence on every platform.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let planDate = LocalDate(year: 2026, month: 3, day: 2)

    /// A random profile within the validation bounds, as a settings row would hold it.
    static func randomRow(_ rng: inout SeededGenerator, userID: Int64) -> UserSettingsRow {
        let age = Int.random(in: 13...120, using: &rng)
        let dateOfBirth = planDate.adding(days: -(age * 365 + Int.random(in: 30...330, using: &rng)))
        let weight = Int.random(in: 200...5000, using: &rng)
        let height = Int.random(in: 500...3000, using: &rng)
        let target: Int? = Bool.random(using: &rng) ? Int.random(in: 200...5000, using: &rng) : nil
        let targetDate: LocalDate? = Bool.random(using: &rng) ? planDate.adding(days: Int.random(in: -100...1000, using: &rng)) : nil
        func tenths(_ value: Int) -> String { "\(value / 10).\(value % 10)" }
        return UserSettingsRow(
            userID: userID, dateOfBirth: dateOfBirth.description,
            gender: Gender.allCases.randomElement(using: &rng)?.rawValue,
            heightCm: tenths(height), currentWeightKg: tenths(weight), targetWeightKg: target.map(tenths),
            primaryGoal: PrimaryGoal.allCases.randomElement(using: &rng)?.rawValue,
            targetDate: targetDate?.description,
            activityLevel: ActivityLevel.allCases.randomElement(using: &rng)?.rawValue,
            dietaryPreferences: [], allergies: [], mealsPerDay: Int.random(in: 1...10, using: &rng),
            timezone: "UTC", onboardingCompleted: true, updatedAt: nil)
    }

    static let zones = TimeTestFixtures.zones(knownNames: ["UTC"])

    static func validSettings(_ row: UserSettingsRow) -> ValidSettings? {
        if case .valid(let settings) = judge(row, planDate: planDate, zones: zones) { settings } else { nil }
    }

    @Test func macrosCaloriesFloorsAndProjectionsHoldForFiveThousandProfiles() throws {
        var rng = SeededGenerator(state: 2026_1)
        for userID in 1...5000 {
            let row = Self.randomRow(&rng, userID: Int64(userID))
            let settings = try #require(Self.validSettings(row), "\(row)")
            let plan = computePlan(from: settings, planDate: Self.planDate, reasons: [.created], currentPlan: nil)
            let t = plan.targets
            let floor = settings.gender.calorieFloor
            let overflow = plan.flags.contains(.macroOverflow)
            let energy = 4 * t.proteinG + 9 * t.fatG + 4 * t.carbsG

            #expect(t.calories >= floor, "\(row)")
            let adjusted = t.tdee + settings.primaryGoal.calorieAdjustment(in: plan.phase.phase)
            #expect(t.calories == max(floor, adjusted), "\(row)")
            #expect(plan.flags.contains(.calorieFloorApplied) == (adjusted < floor), "\(row)")
            #expect(t.carbsG >= 0, "\(row)")
            #expect(t.fatG >= MacroTargets.minimumFatG(weightTenthsKg: settings.weightReportedTenthsKg), "\(row)")
            if t.carbsG > 0 {
                // carbs = round(rest / 4): 4 × carbs is within 2 of the rest.
                #expect(abs(energy - t.calories) <= 2, "\(row)")
            } else if !overflow {
                // Fat lowered to ⌊(calories − 4p) / 9⌋ (or rest exactly 0..1 with carbs 0):
                // the macros never exceed the calories, and miss them by less than 9.
                #expect(t.calories - energy >= 0 && t.calories - energy <= 8, "\(row)")
            } else {
                #expect(energy > t.calories, "\(row)")
            }
            #expect(plan.projection.weeklyRateThousandthsKg >= 0, "\(row)")
            if let weeks = plan.projection.estimatedWeeks {
                #expect((1...520).contains(weeks), "\(row)")
                #expect(plan.projection.projectedDate == Self.planDate.adding(days: 7 * weeks), "\(row)")
            }
            #expect(plan.flags == plan.flags.sorted(), "\(row)")
            #expect(plan.inputs.heightTenthsCm == settings.heightTenthsCm)
        }
    }

    @Test func phasesAlternateEveryFourteenDaysOverAYear() throws {
        var rng = SeededGenerator(state: 14)
        for userID in 1...40 {
            var row = Self.randomRow(&rng, userID: Int64(userID))
            row.primaryGoal = PrimaryGoal.loseWeight.rawValue
            let settings = try #require(Self.validSettings(row))
            var current = computePlan(from: settings, planDate: Self.planDate, reasons: [.created], currentPlan: nil)
            for n in 1...365 {
                let date = Self.planDate.adding(days: n)
                let next = computePlan(from: settings, planDate: date, reasons: [], currentPlan: current)
                let expected: Phase = (n / 14) % 2 == 0 ? .deficit : .maintenance
                #expect(next.phase.phase == expected, "day \(n)")
                #expect((next.phase.phase != current.phase.phase) == (n % 14 == 0), "day \(n)")
                #expect(next.phase.cycleStartDate == Self.planDate)
                #expect(next.phase.nextPhaseSwitchDate == Self.planDate.adding(days: (n / 14 + 1) * 14))
                current = next
            }
        }
    }

    @Test func ageIncrementsExactlyOnBirthdays() {
        var rng = SeededGenerator(state: 29)
        var dates = (0..<300).map { _ in
            LocalDate(daysSinceEpoch: Int.random(in: -20_000...15_000, using: &rng))
        }
        dates += [LocalDate(year: 1996, month: 2, day: 29), LocalDate(year: 2000, month: 2, day: 29),
                  LocalDate(year: 1999, month: 12, day: 31), LocalDate(year: 2001, month: 1, day: 1)]
        for born in dates {
            let b = born.components
            var previousAge = age(bornOn: born, at: Self.planDate.adding(days: -1))
            // Four years cover both kinds of year for 29 February.
            for n in 0..<(4 * 366) {
                let date = Self.planDate.adding(days: n)
                let d = date.components
                let isBirthday = (d.month, d.day) == (b.month, b.day)
                    || (b.month == 2 && b.day == 29 && !LocalDate.isLeapYear(d.year) && (d.month, d.day) == (3, 1))
                let now = age(bornOn: born, at: date)
                #expect(now - previousAge == (isBirthday ? 1 : 0), "born \(born), on \(date)")
                if isBirthday {
                    #expect(nextBirthday(bornOn: born, after: date.adding(days: -1)) == date, "born \(born)")
                }
                previousAge = now
            }
        }
    }
}
