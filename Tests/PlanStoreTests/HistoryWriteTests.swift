import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// How a batch writes `plan_history` and outbox rows whose JSON lies back to back in the
/// batch's buffers: each row keeps its own reasons (though the COPY path makes an array's
/// text again only when the reasons change from one row to the next), its own snapshot,
/// diff and payload.
@Suite struct HistoryWriteTests {
    /// Runs of equal reasons and changes between them. With all 100 users the batch has
    /// more rows than `PlanStore.pipelinedWriteRowLimit` and takes the COPY path; with the
    /// first 5, the pipelined one.
    static let reasonsByUser: [(userID: Int64, reasons: [DueReason])] = (1...100).map { userID in
        let reasons: [DueReason] = switch userID {
        case 1...40: [.created]
        case 41: [.settingsChanged, .birthday]
        case 42...70: [.settingsChanged]
        case 71: [.created]
        default: [.rulesChanged, .manualRerun]
        }
        return (Int64(userID), reasons)
    }

    /// The recorded decisions (sql/0018) vary from row to row too, NULL among them.
    static func phaseSwitch(_ userID: Int64) -> Phase? { [nil, .maintenance, nil, .deficit][Int(userID % 4)] }
    static func notificationType(_ userID: Int64) -> NotificationType? {
        [nil, .planCreated, .phaseSwitch, .targetsUpdated, .phaseSwitch][Int(userID % 5)]
    }

    @Test(arguments: [100, 5])
    func eachRowKeepsItsOwnReasonsAndJSON(users: Int) throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            let store = PlanStore(connection: connection)
            let planDate = LocalDate(year: 2026, month: 3, day: 2)
            let createdAt = Instant(rfc3339: "2026-03-02T00:00:00Z")!
            try store.ensureHistoryPartitions(for: [planDate])
            try connection.executeScript(
                """
                INSERT INTO plan_runs (as_of, binary_version, rules_version, tzdata_version)
                VALUES ('2026-03-02T00:00:00Z', 'test', '2026.1', 'x')
                """, purpose: "test: the run the rows belong to")
            var batch = BatchWrite()
            for user in Self.reasonsByUser.prefix(users) {
                let snapshot = batch.appendJSON { $0 += Array(#"{"u":\#(user.userID)}"#.utf8) }
                let diff = batch.appendJSON { $0 += Array("[\(user.userID)]".utf8) }
                batch.history.append(HistoryWrite(
                    userID: user.userID, planDate: planDate, seq: 0, reasons: user.reasons, snapshotJSON: snapshot,
                    previousJSON: Array(#"{"p":\#(user.userID)}"#.utf8), diffJSON: diff, rulesVersion: "2026.1",
                    phaseSwitch: Self.phaseSwitch(user.userID), notificationType: Self.notificationType(user.userID)))
                batch.appendNotification(id: "n\(user.userID)", userID: user.userID, createdAt: createdAt) {
                    $0 += Array(#"{"id":"n\#(user.userID)"}"#.utf8)
                }
            }
            _ = try connection.withTransaction { _ in
                try store.write(batch, runID: 1, generatedAt: createdAt)
            }
            let stored = try connection.query(
                """
                SELECT user_id, array_to_string(reasons, ' ') AS reasons, snapshot::text, previous::text, diff::text,
                       coalesce(phase_switch, '-') AS phase_switch, coalesce(notification_type, '-') AS notification_type
                FROM plan_history ORDER BY user_id
                """, purpose: "test: reading plan_history rows"
            ).map { row in
                "\(try row.int64("user_id")) \(try row.string("reasons")) \(try row.string("snapshot")) "
                    + "\(try row.string("previous")) \(try row.string("diff")) "
                    + "\(try row.string("phase_switch")) \(try row.string("notification_type"))"
            }
            #expect(stored == Self.reasonsByUser.prefix(users).map { user in
                "\(user.userID) \(user.reasons.map(\.rawValue).joined(separator: " ")) {\"u\": \(user.userID)} "
                    + "{\"p\": \(user.userID)} [\(user.userID)] \(Self.phaseSwitch(user.userID)?.rawValue ?? "-") "
                    + (Self.notificationType(user.userID)?.rawValue ?? "-")
            })
            let lines = try connection.query(
                "SELECT notification_id, payload FROM notification_outbox ORDER BY user_id",
                purpose: "test: reading outbox lines"
            ).map { row in "\(try row.string("notification_id")) \(try row.string("payload"))" }
            #expect(lines == Self.reasonsByUser.prefix(users).map { #"n\#($0.userID) {"id":"n\#($0.userID)"}"# })
            #expect(String(decoding: batch.notificationLines, as: UTF8.self)
                == Self.reasonsByUser.prefix(users).map { #"{"id":"n\#($0.userID)"}"# + "\n" }.joined())
        }
    }
}
