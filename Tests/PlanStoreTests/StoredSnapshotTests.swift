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
