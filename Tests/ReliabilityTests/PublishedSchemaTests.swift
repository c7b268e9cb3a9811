import Foundation
import Testing
import TestSupport

/// The published schemas (`docs/schemas/`, docs/analysts.md, "JSON Schemas") against an
/// independent validator: they are valid 2020-12 schemas, the worked examples' snapshots,
/// diffs and notification lines pass, and the two lines a consumer must be protected from
/// (no `id`; `user_id` a string) fail. The lines and history the runs of KillTests, SoakTests
/// and LocalizedNotificationTests produce are validated there.
@Suite struct PublishedSchemaTests {
    static let examples = PublishedSchema.repository.appendingPathComponent("Tests/PlanRulesTests/Fixtures/examples.jsonl").path

    static func exampleObjects() throws -> [[String: Any]] {
        try String(contentsOfFile: examples, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(.requires(.python3JSONSchema)) func theSchemaFilesAreValidJSONSchema2020_12() throws {
        let check = try #require(try PublishedSchema.checkSchemaFiles())
        #expect(check.isValid, "\(check)")
    }

    @Test(.requires(.python3JSONSchema)) func everyWorkedExampleValidates() throws {
        let examples = try Self.exampleObjects()
        #expect(examples.count >= 14)
        let present = { (key: String) in examples.filter { !($0[key] is NSNull) && $0[key] != nil }.count }
        for (field, schema) in [("notification", PublishedSchema.notificationLine), ("expected", .snapshot),
                                ("previous", .snapshot), ("diff", .diff)] {
            let check = try #require(try schema.validate(field: field, ofLinesIn: Self.examples, count: present(field),
                                                          what: "the worked examples' \(field)"))
            #expect(check.isValid, "\(check)")
        }
    }

    /// A line without `id` and a line with `user_id` as a string are rejected, each for that
    /// reason (the line they are made from passes).
    @Test(.requires(.python3JSONSchema)) func theSchemaRejectsALineWithoutIdOrWithAStringUserId() throws {
        let good = #"{"id":"1:2026-03-16:phase_switch:0","type":"phase_switch","user_id":1,"plan_date":"2026-03-16","timezone":"Europe/Berlin","title":"Maintenance phase","body":"Your calories are increasing to 2,755 today! 🎉","data":{"calories":{"before":2255,"after":2755,"delta":500},"phase":{"before":"deficit","after":"maintenance"}},"created_at":"2026-03-16T00:15:00.000000Z","deliver_after":"2026-03-16T07:00:00.000000Z","schema_version":1}"#
        let valid = try #require(try PublishedSchema.notificationLine.validate([good], what: "section 7's example"))
        #expect(valid.isValid, "\(valid)")

        let withoutID = good.replacingOccurrences(of: #""id":"1:2026-03-16:phase_switch:0","#, with: "")
        let stringUserID = good.replacingOccurrences(of: #""user_id":1,"#, with: #""user_id":"1","#)
        #expect(withoutID != good && stringUserID != good)
        for (line, reason) in [(withoutID, "'id' is a required property"), (stringUserID, "'1' is not of type 'integer'")] {
            let check = try #require(try PublishedSchema.notificationLine.validate([line], what: "a bad line"))
            #expect(!check.isValid && check.status == 1, "accepted: \(line)")
            #expect(check.report.contains(reason), "\(check)")
        }
        // And a field nobody listed: adding one means changing the schema on purpose.
        let extra = good.replacingOccurrences(of: #","schema_version":1}"#, with: #","schema_version":1,"priority":2}"#)
        let check = try #require(try PublishedSchema.notificationLine.validate([extra], what: "an unlisted field"))
        #expect(!check.isValid, "\(check)")
    }
}
