import Foundation
import PlanJSON
import Testing
@testable import PlanRules
import ZoneFiles

/// Every worked example of the rule book (`Fixtures/examples.jsonl`, docs/plan-rules.md
/// section 8): judge the row at the plan date, compute the plan with the example's
/// previous snapshot, and compare every field of the expected snapshot. The expected
/// values are the spec's, not this code's.
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

/// One line of the fixture. The row is read by the test itself (numbers keep their
/// literal text, as PostgreSQL would send them); `previous` and `expected` are decoded
/// with `Snapshot(jsonValue:)`, whose own tests check it against the same fixture.
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
        return try text.split(separator: "\n").map { try Example(JSONValue(parsing: String($0))) }
    }

    init(_ json: JSONValue) throws {
        title = try Self.string(json["title"])
        let row = try need(json["row"])
        self.row = UserSettingsRow(
            userID: try need(Int64(Self.numberText(row["user_id"]))),
            dateOfBirth: Self.optionalString(row["date_of_birth"]),
            gender: Self.optionalString(row["gender"]),
            heightCm: Self.optionalNumberText(row["height_cm"]),
            currentWeightKg: Self.optionalNumberText(row["current_weight_kg"]),
            targetWeightKg: Self.optionalNumberText(row["target_weight_kg"]),
            primaryGoal: Self.optionalString(row["primary_goal"]),
            targetDate: Self.optionalString(row["target_date"]),
            activityLevel: Self.optionalString(row["activity_level"]),
            dietaryPreferences: Self.optionalStringArray(row["dietary_preferences"]),
            allergies: Self.optionalStringArray(row["allergies"]),
            mealsPerDay: Self.optionalNumberText(row["meals_per_day"]).flatMap { Int($0) },
            timezone: Self.optionalString(row["timezone"]),
            onboardingCompleted: { if case .bool(let b) = row["onboarding_completed"] { b } else { nil } }(),
            updatedAt: try Self.optionalString(row["updated_at"]).map { try need(Instant(rfc3339: $0)) })
        planDate = try need(LocalDate(iso8601: Self.string(json["plan_date"])))
        reasons = try need(Self.optionalStringArray(json["reasons"])).map { try need(DueReason(rawValue: $0 ?? "")) }
        if let previousJSON = json["previous"], previousJSON != .null {
            previous = try Snapshot(jsonValue: previousJSON)
        }
        expected = try Snapshot(jsonValue: try need(json["expected"]))
    }

    static func string(_ value: JSONValue?) throws -> String { try need(optionalString(value)) }

    static func optionalString(_ value: JSONValue?) -> String? {
        if case .string(let text) = value { text } else { nil }
    }

    static func numberText(_ value: JSONValue?) throws -> String { try need(optionalNumberText(value)) }

    static func optionalNumberText(_ value: JSONValue?) -> String? {
        if case .number(let number) = value { number.text } else { nil }
    }

    static func optionalStringArray(_ value: JSONValue?) -> [String?]? {
        if case .array(let items) = value { items.map(optionalString) } else { nil }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// Unwraps a value the fixture must hold.
func need<T>(_ value: T?, _ sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    guard let value else { throw FixtureError(description: "missing \(T.self) at \(sourceLocation)") }
    return value
}
