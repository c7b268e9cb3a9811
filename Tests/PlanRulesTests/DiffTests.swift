import PlanJSON
import Testing
@testable import PlanRules

@Test(arguments: SpecExample.all)
func diffMatchesTheFixtureByteForByte(example: SpecExample) throws {
    let expected = try #require(try example.snapshot("expected"))
    let fixtureDiff = try #require(example.value["diff"])
    #expect(planDiff(from: try example.snapshot("previous"), to: expected).jsonString == fixtureDiff.jsonString)
}

@Test func theFirstPlanHasAnEmptyDiff() throws {
    let snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    #expect(planDiff(from: nil, to: snapshot).isEmpty)
    #expect(planDiff(from: nil, to: snapshot).jsonString == "[]")
}

@Test func anUnchangedSnapshotHasAnEmptyDiffEvenOnAnotherDateWithOtherReasons() throws {
    let snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    var later = snapshot
    later.planDate = snapshot.planDate.adding(days: 1)   // plan_date and reasons are not leaves
    later.reasons = [.manualRerun]
    #expect(planDiff(from: snapshot, to: later).isEmpty)
}

@Test func deltasUseTheFieldsPrecisionAndOnlyNumbersHaveOne() throws {
    let before = try #require(try SpecExample.all.first?.snapshot("expected"))
    var after = before
    after.projection.weeklyRateThousandthsKg = 250      // 0.25 − 0.227 = 0.023
    after.inputs.targetWeightTenthsKg = nil              // 75.0 → null: no delta
    after.phase.phaseDay = 5                             // 0 → 5: delta 5
    after.inputs.heightTenthsCm = 1775                   // 178.0 → 177.5: delta −0.5
    after.inputs.dietaryPreferences = ["vegan"]          // [] → ["vegan"]: an array leaf
    after.flags = [.timelineUnrealistic]
    after.rulesVersion = "2027.1"
    #expect(planDiff(from: before, to: after).jsonString == """
        [{"path":"flags","before":[],"after":["timeline_unrealistic"]},\
        {"path":"inputs.dietary_preferences","before":[],"after":["vegan"]},\
        {"path":"inputs.height_cm","before":178.0,"after":177.5,"delta":-0.5},\
        {"path":"inputs.target_weight_kg","before":75.0,"after":null},\
        {"path":"phase.phase_day","before":0,"after":5,"delta":5},\
        {"path":"projection.weekly_rate_kg","before":0.227,"after":0.25,"delta":0.023},\
        {"path":"rules_version","before":"2026.1","after":"2027.1"}]
        """)
}

@Test func entriesAreSortedByPath() throws {
    let before = try #require(try SpecExample.all.first?.snapshot("expected"))
    var after = before
    after.targets = .init(bmr: 1, tdee: 2, calories: 3, proteinG: 4, fatG: 5, carbsG: 6, waterMl: 7)
    after.inputs.age = 40
    after.inputs.allergies = ["nuts"]
    after.inputs.settingsUpdatedAt = nil
    after.phase = .init(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil)
    after.projection = .init(weeklyRateThousandthsKg: 0, estimatedWeeks: nil, projectedDate: nil,
                             recommendedTargetDate: before.planDate)
    after.flags = [.macroOverflow]
    let paths = planDiff(from: before, to: after).map(\.path.rawValue)
    #expect(paths.count == 19)  // 7 targets + 3 inputs (age, allergies, settings_updated_at) + 4 phase + 4 projection + flags
    #expect(paths == paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
}

@Test func numbersCompareByValue() {
    #expect(DiffValue.number(scaled: 0, decimals: 0).hasSameValue(as: .number(scaled: 0, decimals: 1)))
    #expect(DiffValue.number(scaled: 82, decimals: 0).hasSameValue(as: .number(scaled: 820, decimals: 1)))
    #expect(!DiffValue.number(scaled: 82, decimals: 0).hasSameValue(as: .number(scaled: 821, decimals: 1)))
    #expect(!DiffValue.null.hasSameValue(as: .number(scaled: 0, decimals: 0)))
}

// MARK: - planChanged (section 2, "A plan is written only if it changed")

@Test func fieldsThatMoveWithThePlanDateAloneAreNotAChange() throws {
    let before = try #require(try SpecExample.all.first?.snapshot("expected"))
    var after = before
    after.planDate = before.planDate.adding(days: 3)
    after.reasons = [.birthday]
    after.phase.phaseDay = 3
    after.phase.nextPhaseSwitchDate = before.planDate.adding(days: 28)
    after.projection.projectedDate = before.planDate.adding(days: 7)
    after.projection.recommendedTargetDate = before.planDate
    after.inputs.settingsUpdatedAt = Instant(secondsSinceEpoch: 0)
    #expect(!planChanged(from: before, to: after))
}

@Test(arguments: [
    "rules_version", "inputs.weight_kg_reported", "inputs.dietary_preferences", "inputs.timezone",
    "targets.carbs_g", "phase.phase", "phase.cycle_start_date", "projection.weekly_rate_kg",
    "projection.estimated_weeks", "flags", "inputs.age",
])
func eachFieldOfTheChangeRuleIsAChange(path: String) throws {
    let before = try #require(try SpecExample.all.first?.snapshot("expected"))
    var after = before
    switch path {
    case "rules_version": after.rulesVersion = "2025.9"
    case "inputs.weight_kg_reported": after.inputs.weightReportedTenthsKg += 1
    case "inputs.dietary_preferences": after.inputs.dietaryPreferences = ["vegan"]
    case "inputs.timezone": after.inputs.timezone = "US/Eastern"
    case "targets.carbs_g": after.targets.carbsG += 1
    case "phase.phase": after.phase.phase = .maintenance
    case "phase.cycle_start_date": after.phase.cycleStartDate = before.planDate.adding(days: 1)
    case "projection.weekly_rate_kg": after.projection.weeklyRateThousandthsKg += 1
    case "projection.estimated_weeks": after.projection.estimatedWeeks = nil
    case "flags": after.flags = [.targetDatePassed]
    default: after.inputs.age += 1
    }
    #expect(planChanged(from: before, to: after))
    #expect(planDiff(from: before, to: after).map(\.path.rawValue).contains(path))
}

/// The diff's paths against an oracle that knows nothing of `Snapshot`'s fields: the
/// leaves (section 6: under inputs, targets, phase and projection, plus flags and
/// rules_version) whose JSON text differs between the two snapshots as written. Over
/// every ordered pair of the examples' snapshots, so that each leaf is seen changing.
@Test func everyChangedLeafOfTheWrittenSnapshotsIsInTheDiff() throws {
    let snapshots = try SpecExample.all.flatMap { example in
        try [example.snapshot("previous"), example.snapshot("expected")].compactMap { $0 }
    }
    func leaves(_ snapshot: Snapshot) throws -> [String: String] {
        let json = try JSONValue(parsing: snapshot.jsonString)
        var leaves = ["flags": json["flags"]!.jsonString, "rules_version": json["rules_version"]!.jsonString]
        for section in ["inputs", "targets", "phase", "projection"] {
            guard case .object(let members) = json[section] else {
                Issue.record("a snapshot without \(section)")
                continue
            }
            for member in members { leaves["\(section).\(member.key)"] = member.value.jsonString }
        }
        return leaves
    }
    var seenChanging = Set<String>()
    var failures: [String] = []
    for before in snapshots {
        let leavesBefore = try leaves(before)
        for after in snapshots {
            let leavesAfter = try leaves(after)
            let changed = leavesBefore.keys.filter { leavesBefore[$0] != leavesAfter[$0] }.sorted {
                $0.utf8.lexicographicallyPrecedes($1.utf8)
            }
            let diffed = planDiff(from: before, to: after).map(\.path.rawValue)
            if diffed != changed { failures.append("\(diffed) != \(changed)") }
            seenChanging.formUnion(changed)
        }
    }
    #expect(failures.isEmpty, "\(failures.count) pairs differ, the first: \(failures.first ?? "")")
    // All 32 leaves but a few the examples never vary are exercised.
    #expect(seenChanging.count >= 28, "\(seenChanging.sorted())")
}
