import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// How a large batch (the COPY path) writes `plan_history` rows: each row keeps its own
/// reasons, though the writer makes an array's text again only when the reasons change
/// from one row to the next.
@Suite struct HistoryWriteTests {
    /// Runs of equal reasons and changes between them, over more rows than
    /// `PlanStore.pipelinedWriteRowLimit`, so the batch takes the COPY path.
    static let reasonsByUser: [(userID: Int64, reasons: [String])] = (1...100).map { userID in
        let reasons: [String] = switch userID {
        case 1...40: ["created"]
        case 41: ["settings_changed", "birthday"]
        case 42...70: ["settings_changed"]
        case 71: ["created"]
        default: ["rules_changed", "manual_rerun"]
        }
        return (Int64(userID), reasons)
    }

    @Test func eachCopiedRowKeepsItsOwnReasons() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            let store = PlanStore(connection: connection)
            let planDate = LocalDate(year: 2026, month: 3, day: 2)
            try store.ensureHistoryPartitions(for: [planDate])
            var batch = BatchWrite()
            for user in Self.reasonsByUser {
                batch.history.append(HistoryWrite(
                    userID: user.userID, planDate: planDate, seq: 0,
                    reasons: user.reasons, snapshotJSON: Array("{}".utf8), previousJSON: nil,
                    diffJSON: Array("[]".utf8), rulesVersion: "2026.1"))
            }
            _ = try connection.withTransaction { _ in
                try store.write(batch, runID: 1, generatedAt: Instant(rfc3339: "2026-03-02T00:00:00Z")!)
            }
            let stored = try connection.query(
                "SELECT user_id, array_to_string(reasons, ' ') FROM plan_history ORDER BY user_id",
                purpose: "test: reading plan_history reasons"
            ).map { row in "\(try row.int64(0)) \(try row.string(1))" }
            #expect(stored == Self.reasonsByUser.map { "\($0.userID) \($0.reasons.joined(separator: " "))" })
        }
    }
}
