import Foundation
import Testing
@testable import PlanRules

/// Every worked example of `shared/spec/examples.jsonl`: judge the row at the plan date,
/// compute the plan with the example's previous snapshot, and compare every field of the
/// expected snapshot. The expected values are the spec's, not this code's.
struct ExamplesTests {
    static let examples: [Example] = (try? Example.loadAll()) ?? []
    static let zones = try? ZoneDatabase.loadSystem()

    @Test func theFixtureHoldsAllFourteenExamples() {
        #expect(Self.examples.count == 14)
    }

    @Test(arguments: examples)
    func computedSnapshotEqualsTheExpectedOne(_ example: Example) throws {
        let zones = try #require(Self.zones)
        let judgement = judge(example.row, planDate: example.planDate, zones: zones)
        guard case .valid(let settings) = judgement else {
            Issue.record("\(example.title): judged \(judgement)")
            return
        }
        let plan = computePlan(from: settings, planDate: example.planDate, reasons: example.reasons,
                               currentPlan: example.previous)
        let expected = example.expected
        #expect(plan.rulesVersion == expected.rulesVersion, "\(example.title)")
        #expect(plan.planDate == expected.planDate, "\(example.title)")
        #expect(plan.reasons == expected.reasons, "\(example.title)")
        #expect(plan.inputs == expected.inputs, "\(example.title)")
        #expect(plan.targets == expected.targets, "\(example.title)")
        #expect(plan.phase == expected.phase, "\(example.title)")
        #expect(plan.projection == expected.projection, "\(example.title)")
        #expect(plan.flags == expected.flags, "\(example.title)")
    }
}

/// One line of the fixture, decoded by the test itself so that the comparison does not
/// depend on the code under test.
struct Example: Sendable, CustomTestStringConvertible {
    var title: String
    var row: UserSettingsRow
    var planDate: LocalDate
    var reasons: [DueReason]
    var previous: Snapshot?
    var expected: Snapshot

    var testDescription: String { title }

    static func loadAll() throws -> [Example] {
        let url = try need(Bundle.module.url(forResource: "Fixtures/examples", withExtension: "jsonl"))
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try need(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try Example(object)
        }
    }

    init(_ json: [String: Any]) throws {
        title = try need(json["title"] as? String)
        let row = try need(json["row"] as? [String: Any])
        self.row = UserSettingsRow(
            userID: try need((row["user_id"] as? NSNumber)?.int64Value),
            dateOfBirth: row["date_of_birth"] as? String,
            gender: row["gender"] as? String,
            heightCm: (row["height_cm"] as? NSNumber).map { "\($0.doubleValue)" },
            currentWeightKg: (row["current_weight_kg"] as? NSNumber).map { "\($0.doubleValue)" },
            targetWeightKg: (row["target_weight_kg"] as? NSNumber).map { "\($0.doubleValue)" },
            primaryGoal: row["primary_goal"] as? String,
            targetDate: row["target_date"] as? String,
            activityLevel: row["activity_level"] as? String,
            dietaryPreferences: (row["dietary_preferences"] as? [Any])?.map { $0 as? String },
            allergies: (row["allergies"] as? [Any])?.map { $0 as? String },
            mealsPerDay: (row["meals_per_day"] as? NSNumber)?.intValue,
            timezone: row["timezone"] as? String,
            onboardingCompleted: (row["onboarding_completed"] as? NSNumber)?.boolValue,
            updatedAt: try (row["updated_at"] as? String).map(Self.instant))
        planDate = try Self.date(json["plan_date"])
        reasons = try Self.reasons(json["reasons"])
        previous = try (json["previous"] as? [String: Any]).map(Self.snapshot)
        expected = try Self.snapshot(try need(json["expected"] as? [String: Any]))
    }

    static func snapshot(_ json: [String: Any]) throws -> Snapshot {
        let inputs = try need(json["inputs"] as? [String: Any])
        let targets = try need(json["targets"] as? [String: Any])
        let phase = try need(json["phase"] as? [String: Any])
        let projection = try need(json["projection"] as? [String: Any])
        return Snapshot(
            rulesVersion: try need(json["rules_version"] as? String),
            planDate: try date(json["plan_date"]),
            reasons: try reasons(json["reasons"]),
            inputs: Snapshot.Inputs(
                dateOfBirth: try date(inputs["date_of_birth"]),
                age: try int(inputs["age"]),
                gender: try need(Gender(rawValue: inputs["gender"] as? String ?? "")),
                heightTenthsCm: try scaled(inputs["height_cm"], by: 10),
                weightReportedTenthsKg: try scaled(inputs["weight_kg_reported"], by: 10),
                weightBasisTenthsKg: try scaled(inputs["weight_kg_basis"], by: 10),
                primaryGoal: try need(PrimaryGoal(rawValue: inputs["primary_goal"] as? String ?? "")),
                activityLevel: try need(ActivityLevel(rawValue: inputs["activity_level"] as? String ?? "")),
                targetWeightTenthsKg: inputs["target_weight_kg"] is NSNull ? nil : try scaled(inputs["target_weight_kg"], by: 10),
                targetDate: inputs["target_date"] is NSNull ? nil : try date(inputs["target_date"]),
                dietaryPreferences: try need(inputs["dietary_preferences"] as? [String]),
                allergies: try need(inputs["allergies"] as? [String]),
                mealsPerDay: try int(inputs["meals_per_day"]),
                timezone: try need(inputs["timezone"] as? String),
                settingsUpdatedAt: try (inputs["settings_updated_at"] as? String).map(instant)),
            targets: Snapshot.Targets(
                bmr: try int(targets["bmr"]), tdee: try int(targets["tdee"]),
                calories: try int(targets["calories"]), proteinG: try int(targets["protein_g"]),
                fatG: try int(targets["fat_g"]), carbsG: try int(targets["carbs_g"]),
                waterMl: try int(targets["water_ml"])),
            phase: Snapshot.PhaseInfo(
                phase: try need(Phase(rawValue: phase["phase"] as? String ?? "")),
                cycleStartDate: phase["cycle_start_date"] is NSNull ? nil : try date(phase["cycle_start_date"]),
                phaseDay: phase["phase_day"] is NSNull ? nil : try int(phase["phase_day"]),
                nextPhaseSwitchDate: phase["next_phase_switch_date"] is NSNull
                    ? nil : try date(phase["next_phase_switch_date"])),
            projection: Snapshot.Projection(
                weeklyRateThousandthsKg: try scaled(projection["weekly_rate_kg"], by: 1000),
                estimatedWeeks: projection["estimated_weeks"] is NSNull ? nil : try int(projection["estimated_weeks"]),
                projectedDate: projection["projected_date"] is NSNull ? nil : try date(projection["projected_date"]),
                recommendedTargetDate: projection["recommended_target_date"] is NSNull
                    ? nil : try date(projection["recommended_target_date"])),
            flags: try need(json["flags"] as? [String]).map { try need(Flag(rawValue: $0)) })
    }

    static func date(_ value: Any?) throws -> LocalDate {
        try need(LocalDate(iso8601: try need(value as? String)))
    }

    static func int(_ value: Any?) throws -> Int {
        try need((value as? NSNumber)?.intValue)
    }

    /// A decimal JSON number as an integer count of 1/`factor` units (82.3 → 823).
    static func scaled(_ value: Any?, by factor: Double) throws -> Int {
        Int((try need((value as? NSNumber)?.doubleValue) * factor).rounded())
    }

    static func reasons(_ value: Any?) throws -> [DueReason] {
        try need(value as? [String]).map { try need(DueReason(rawValue: $0)) }
    }

    /// `2026-03-01T09:00:00.000000Z`, the only form the fixture uses.
    static func instant(_ text: String) throws -> Instant {
        let parts = text.split(whereSeparator: { "T:.Z".contains($0) })
        guard parts.count == 5 else { throw FixtureError(description: "bad instant \(text)") }
        let day = try need(LocalDate(iso8601: parts[0]))
        let hour = try need(Int64(parts[1])), minute = try need(Int64(parts[2]))
        let second = try need(Int64(parts[3])), micros = try need(Int64(parts[4]))
        let seconds = Int64(day.daysSinceEpoch) * 86_400 + hour * 3600 + minute * 60 + second
        return Instant(microsecondsSinceEpoch: seconds * 1_000_000 + micros)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// Unwraps a value the fixture must hold (nested `#require` cannot expand inside itself).
func need<T>(_ value: T?, _ sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    guard let value else { throw FixtureError(description: "missing \(T.self) at \(sourceLocation)") }
    return value
}
