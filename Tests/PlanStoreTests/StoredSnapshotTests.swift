import Foundation
@testable import PlanJSON
import PlanRules
@testable import PlanStore
import TestSupport
import Testing

/// The snapshots the job COPYs into `plan_history`: the contract's object, keys in jsonb's order.
@Suite struct StoredSnapshotTests {
    /// The `expected` plans of the rule book's worked examples.
    static let examples: [Snapshot] = {
        let path = PublishedSchema.repository.appendingPathComponent("Tests/PlanRulesTests/Fixtures/examples.jsonl").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONValue(parsing: String(line)))?["expected"].flatMap { try? Snapshot(jsonValue: $0) }
        }
    }()

    @Test func theWorkedExamplesAreRead() {
        #expect(Self.examples.count == 14)
    }

    /// What the job stores is what PostgreSQL would keep of the contract's bytes: the same
    /// object, its keys already in jsonb's order at every level (PostgreSQL then skips
    /// sorting them).
    @Test(arguments: examples)
    func storageBytesAreTheContractObjectInJsonbKeyOrder(snapshot: Snapshot) throws {
        let contract = try JSONValue(parsing: snapshot.jsonBytes())
        #expect(snapshot.storageJSONBytes() != snapshot.jsonBytes())
        #expect(Self.inJsonbKeyOrder(contract).jsonBytes() == snapshot.storageJSONBytes())
        #expect(try Snapshot(json: snapshot.storageJSONBytes()) == snapshot)
    }

    /// PostgreSQL's own text of stored plans (`snapshot::text`: jsonb's key order, spaces
    /// after `:` and `,`, its escapes) decodes to the plan that was stored, through
    /// `SnapshotReader` unless a string needed an escape.
    @Test func jsonbTextFromPostgreSQLDecodesToTheStoredPlan() throws {
        let plans = Self.variedExamples(count: 1500)
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let stored = plans.map { String(decoding: $0.storageJSONBytes(), as: UTF8.self) }
            let texts = try connection.query(
                "SELECT s::jsonb::text AS s FROM unnest(\(stored)::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n",
                purpose: "printing snapshots as jsonb"
            ).map { try $0.string("s") }
            #expect(texts.count == plans.count)
            var read = 0
            for (index, (plan, text)) in zip(plans, texts).enumerated() {
                #expect(text.contains("\"inputs\": {"), "\(index)")
                #expect(try Snapshot(json: text) == plan, "\(index): \(text)")
                var text = text
                let direct = text.withUTF8 { SnapshotReader.read($0) }
                #expect(direct == (text.contains("\\") ? nil : plan), "\(index): \(text)")
                if direct != nil { read += 1 }
            }
            #expect(read > plans.count / 2)
        }
    }

    /// The worked examples, each copy with other nullable fields null, other phases,
    /// reasons, flags, infinities and strings (some needing escapes, some not ASCII).
    static func variedExamples(count: Int) -> [Snapshot] {
        (0..<count).map { index in
            var plan = examples[index % examples.count]
            var bits = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            func next(_ n: Int) -> Int {
                defer { bits = bits >> 3 | bits << 61 }
                return Int(bits % UInt64(n))
            }
            let day = plan.planDate
            plan.planDate = day.adding(days: next(5000) - 2500)
            plan.reasons = DueReason.allCases.filter { _ in next(2) == 0 }
            plan.flags = Flag.allCases.filter { _ in next(2) == 0 }
            plan.inputs.settingsUpdatedAt = [nil, .distantPast, .distantFuture,
                                             Instant(microsecondsSinceEpoch: Int64(index) * 1_234_567_891)][next(4)]
            plan.inputs.targetWeightTenthsKg = next(2) == 0 ? nil : 500 + next(1000)
            plan.inputs.targetDate = next(2) == 0 ? nil : day.adding(days: next(900))
            let strings = ["vegan", "végétarien 🌱", "say \"hi\"", "", "nuts", "日本語"]
            plan.inputs.dietaryPreferences = strings.filter { _ in next(3) == 0 }
            plan.inputs.allergies = strings.filter { _ in next(3) == 0 }
            plan.phase = [
                plan.phase,
                Snapshot.PhaseInfo(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil),
                Snapshot.PhaseInfo(phase: .maintenance, cycleStartDate: day.adding(days: -20), phaseDay: 20,
                                   nextPhaseSwitchDate: day.adding(days: 8)),
            ][next(3)]
            plan.projection.weeklyRateThousandthsKg = [0, 12, 250, 227, 1500][next(5)]
            plan.projection.estimatedWeeks = next(2) == 0 ? nil : 1 + next(520)
            plan.projection.recommendedTargetDate = next(2) == 0 ? nil : day.adding(days: next(3000))
            return plan
        }
    }

    @Test func jsonbKeyOrderIsShorterFirstThenBytewise() {
        #expect(jsonbKeyPrecedes("age", "gender"))
        #expect(!jsonbKeyPrecedes("gender", "age"))
        #expect(jsonbKeyPrecedes("calories", "water_ml"))
        #expect(!jsonbKeyPrecedes("water_ml", "calories"))
        #expect(!jsonbKeyPrecedes("phase", "phase"))
        #expect(SnapshotKeyOrder.jsonb.targets.keys == [.bmr, .tdee, .fatG, .carbsG, .calories, .waterMl, .proteinG])
        #expect(SnapshotKeyOrder.contract.snapshot.keys == SnapshotKey.allCases)
    }

    /// `value` with every object's keys as PostgreSQL orders a jsonb's: by byte length, then
    /// bytewise (written here independently of `jsonbKeyPrecedes`).
    static func inJsonbKeyOrder(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { JSONMember(key: $0.key, value: inJsonbKeyOrder($0.value)) }.sorted { a, b in
                a.key.utf8.count != b.key.utf8.count ? a.key.utf8.count < b.key.utf8.count
                    : a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
            })
        case .array(let elements):
            return .array(elements.map(inJsonbKeyOrder))
        default:
            return value
        }
    }
}

extension Snapshot: CustomTestStringConvertible {
    public var testDescription: String { "plan of \(planDate) (\(reasons.map(\.rawValue).joined(separator: ", ")))" }
}
