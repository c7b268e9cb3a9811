import Operations
import PlanJSON
import PlanRules
import Testing

/// The timeline's wording of a plan change ("Plan recalculated — Target 1,950 → 1,975 cal").
@Suite struct PlanChangeSummaryTests {
    private func change(_ path: String, _ before: DiffValue, _ after: DiffValue) -> FieldChange {
        FieldChange(path: PlanField(rawValue: path)!, before: before, after: after)
    }

    @Test func theFirstPlanNamesItsTargets() {
        let summary = PlanChangeSummary(changes: [], calories: 1975, proteinG: 130, waterMl: 2450)
        #expect(summary.event == "Plan created")
        #expect(summary.details == "Target 1,975 cal, 130 g protein, 2,450 ml water")
    }

    @Test func newCaloriesAreARecalculatedPlan() {
        let summary = PlanChangeSummary(
            changes: [change("inputs.activity_level", .string("sedentary"), .string("lightly_active")),
                      change("targets.calories", .int(1950), .int(1975)), change("targets.carbs_g", .int(200), .int(206))],
            calories: 1975, proteinG: 130, waterMl: 2450)
        #expect(summary.event == "Plan recalculated")
        #expect(summary.details == "Target 1,950 → 1,975 cal · Changed: activity_level")
    }

    @Test func aReportedWeightAloneKeepsTheTarget() {
        let summary = PlanChangeSummary(changes: [change("inputs.weight_kg_reported", .tenths(820), .tenths(816))],
                                        calories: 1975, proteinG: 130, waterMl: 2450)
        #expect(summary.event == "Weight updated")
        #expect(summary.details == "Weight 82.0 → 81.6 kg · Target unchanged (1,975 cal)")
    }

    @Test func aPhaseSwitchNamesTheNewPhase() {
        let toMaintenance = PlanChangeSummary(
            changes: [change("phase.phase", .string("deficit"), .string("maintenance")),
                      change("targets.calories", .int(1800), .int(2300))],
            calories: 2300, proteinG: 160, waterMl: 2800)
        #expect(toMaintenance.event == "Maintenance phase started")
        #expect(toMaintenance.details == "Target 1,800 → 2,300 cal")
        let toDeficit = PlanChangeSummary(
            changes: [change("phase.phase", .string("maintenance"), .string("deficit")),
                      change("targets.calories", .int(2300), .int(1800))],
            calories: 1800, proteinG: 160, waterMl: 2800)
        #expect(toDeficit.event == "Deficit phase started")
    }

    @Test func diffEntriesFromTheRulesAndFromTheDatabaseReadAlike() throws {
        let computed = FieldChange(path: .calories, before: .number(scaled: 1950, decimals: 0),
                                   after: .number(scaled: 1975, decimals: 0))
        let stored = try FieldChange.diff(json: #"[{"path": "targets.calories", "after": 1975, "delta": 25, "before": 1950}]"#)
        #expect(stored == [computed])
        #expect(ReadableFormat.standard.text(computed.before) == "1,950")
    }

    @Test func timelineDatesAreWrittenAsTheAppDoes() {
        #expect(ReadableFormat.standard.timelineDate(LocalDate(year: 2025, month: 10, day: 21)) == "Oct 21, 2025")
    }
}
