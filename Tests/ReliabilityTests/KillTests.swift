import Foundation
import PlanRules
import Postgres
import Testing
import TestSupport

/// `kill -9` at 22 points of two runs over 20,000 users, each killed run followed by a
/// rerun: the end state equals an uninterrupted run's on an identically seeded database
/// (history, state, rejections, outbox), and every notification the uninterrupted run
/// emits was emitted at least once, with the same payload.
@Suite struct KillTests {
    /// Where a run is killed.
    enum KillPoint: CustomStringConvertible {
        /// The process kills itself (`PLAN_REGEN_FAULT`, see FaultInjection): exact points
        /// between commit and emit, mid-emit, and between emit and marking emitted.
        case fault(String)
        /// SIGKILL from the test once this many more plan_history rows are committed: lands
        /// anywhere, mostly inside the next batch's transaction.
        case afterHistoryRows(Int)
        /// SIGKILL once this many more lines are in the notifications file.
        case afterNotificationLines(Int)
        /// SIGKILL as soon as the run has recorded itself: during selection or the
        /// re-emission of lines a killed run left pending.
        case duringStartup

        var description: String {
            switch self {
            case .fault(let fault): fault
            case .afterHistoryRows(let rows): "after \(rows) more history rows"
            case .afterNotificationLines(let lines): "after \(lines) more notification lines"
            case .duringStartup: "during startup"
            }
        }
    }

    struct Phase {
        var asOf: String
        var batchSize: Int
        var kills: [KillPoint]
    }

    /// Phase 1 creates ~19,000 first plans; phase 2, 14 days later, writes phase switches,
    /// birthdays and the app's changes (with previous snapshots and diffs).
    static let phases = [
        Phase(asOf: "2026-03-01T00:00:00Z", batchSize: 500, kills: [
            .fault("before-emit:1"), .fault("after-emit:2"), .fault("mid-emit:3"), .afterHistoryRows(1200),
            .afterNotificationLines(1700), .duringStartup, .fault("before-emit:4"), .fault("mid-emit:1"),
            .afterHistoryRows(2600), .fault("after-emit:5"), .afterNotificationLines(900),
        ]),
        Phase(asOf: "2026-03-15T12:00:00Z", batchSize: 400, kills: [
            .fault("before-emit:2"), .afterHistoryRows(700), .fault("after-emit:1"), .afterNotificationLines(500),
            .fault("mid-emit:2"), .duringStartup, .fault("before-emit:1"), .afterHistoryRows(1500),
            .fault("after-emit:3"), .afterNotificationLines(1100), .fault("mid-emit:4"),
        ]),
    ]

    static let users = 20_000

    @Test func runsKilledAtTwentyTwoPointsEndIdenticalToAnUninterruptedRun() throws {
        try JobDatabase.withFresh { reference in
            try JobDatabase.withFresh { killed in
                let files = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: files) }
                let referenceLines = files.appendingPathComponent("reference.jsonl")
                let killedLines = files.appendingPathComponent("killed.jsonl")
                for db in [reference, killed] {
                    try db.seed(users: Self.users, writtenBefore: Instant(rfc3339: Self.phases[0].asOf)!)
                }
                var killPointsTried = 0
                for (index, phase) in Self.phases.enumerated() {
                    if index > 0 {
                        for db in [reference, killed] { try Self.appChanges(db) }
                    }
                    let arguments = ["--as-of", phase.asOf, "--batch-size", String(phase.batchSize)]
                    let uninterrupted = try reference.run(arguments + ["--notifications", referenceLines.path])
                    #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")

                    for point in phase.kills {
                        try kill(killed, at: point, arguments: arguments + ["--notifications", killedLines.path])
                        killPointsTried += 1
                    }
                    let completion = try killed.run(arguments + ["--notifications", killedLines.path])
                    #expect(completion.status == 0, "\(completion.stderr)")
                }
                #expect(killPointsTried >= 20)
                try compare(reference: reference, referenceLines: referenceLines, killed: killed,
                            killedLines: killedLines, killPoints: killPointsTried)
            }
        }
    }

    /// Starts a run, kills it at `point`, waits until its backend is gone (so the next
    /// run can take every partition) and checks that no batch was left half-done.
    private func kill(_ db: JobDatabase, at point: KillPoint, arguments: [String]) throws {
        let tables = PlanTables(connection: try db.owner())
        let notifications = LineCounter(URL(fileURLWithPath: arguments.last!))
        let historyBefore = try tables.count("SELECT count(*) FROM plan_history")
        let runsBefore = try tables.count("SELECT count(*) FROM plan_runs")
        let linesBefore = try notifications.count()
        var environment: [String: String] = [:]
        if case .fault(let fault) = point { environment["PLAN_REGEN_FAULT"] = fault }
        let job = try db.startRun(arguments, environment: environment)
        switch point {
        case .fault:
            break
        case .afterHistoryRows(let rows):
            try waitUntil("\(point)") {
                try tables.count("SELECT count(*) FROM plan_history") >= historyBefore + rows || !job.isRunning
            }
            job.killNow()
        case .afterNotificationLines(let lines):
            try waitUntil("\(point)") { try notifications.count() >= linesBefore + lines || !job.isRunning }
            job.killNow()
        case .duringStartup:
            try waitUntil("\(point)") { try tables.count("SELECT count(*) FROM plan_runs") > runsBefore || !job.isRunning }
            job.killNow()
        }
        let result = try job.waitForExit()
        #expect(result.killed && result.status == SIGKILL, "kill point \(point) not reached: \(result.stderr)")
        try waitUntil("the killed run's backend to end") {
            try tables.count("SELECT count(*) FROM pg_stat_activity WHERE usename = \(bind: db.jobRole)") == 0
        }
        let consistency = try tables.consistency()
        #expect(consistency.isConsistent, "after kill point \(point): \(consistency)")
    }

    /// The app's writes between the phases, the same on both databases.
    static func appChanges(_ db: JobDatabase) throws {
        try db.owner().executeScript(
            """
            UPDATE user_settings SET current_weight_kg = current_weight_kg - 1.5,
                   updated_at = '2026-03-04T00:00:00Z' WHERE user_id % 7 = 0;
            UPDATE user_settings SET onboarding_completed = true,
                   updated_at = '2026-03-04T00:00:00Z' WHERE user_id % 41 = 5;
            """, purpose: "the app changing users between the phases")
    }

    private func compare(reference: JobDatabase, referenceLines: URL, killed: JobDatabase, killedLines: URL,
                         killPoints: Int) throws {
        let expected = PlanTables(connection: try reference.owner())
        let actual = PlanTables(connection: try killed.owner())
        let history = (try expected.historyFingerprints(), try actual.historyFingerprints())
        #expect(history.0.count > Self.users, "both phases wrote history")
        #expect(history.0 == history.1, "plan_history differs in \(Self.differences(history.0, history.1))")
        let state = (try expected.stateFingerprints(), try actual.stateFingerprints())
        #expect(state.0.count == Self.users)
        #expect(state.0 == state.1, "plan_state differs in \(Self.differences(state.0, state.1))")
        let rejections = (try expected.rejectionFingerprints(), try actual.rejectionFingerprints())
        #expect(!rejections.0.isEmpty)
        #expect(rejections.0 == rejections.1, "plan_rejections differ in \(Self.differences(rejections.0, rejections.1))")
        let consistency = try actual.consistency()
        #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
        #expect(try expected.outbox() == actual.outbox())

        // At least once, with the very same line.
        let referenceEmitted = try String(contentsOf: referenceLines, encoding: .utf8).split(separator: "\n").map(String.init)
        // A kill in the middle of a write may leave the start of a line; the next run ends
        // it with a newline (NotificationSink), and emits that notification again whole.
        let (killedEmitted, fragments) = try String(contentsOf: killedLines, encoding: .utf8).split(separator: "\n")
            .map(String.init).reduce(into: ([String](), [String]())) { lines, line in
                if (try? notificationIDs([line])) != nil { lines.0.append(line) } else { lines.1.append(line) }
            }
        #expect(fragments.allSatisfy { fragment in referenceEmitted.contains { $0.hasPrefix(fragment) } },
                "not the start of a notification line: \(fragments.prefix(2))")
        let lineByID = Dictionary(uniqueKeysWithValues: zip(try notificationIDs(referenceEmitted), referenceEmitted))
        #expect(lineByID.count == referenceEmitted.count, "the uninterrupted runs emit each id once")
        let killedIDs = try notificationIDs(killedEmitted)
        let missing = Set(lineByID.keys).subtracting(killedIDs)
        #expect(missing.isEmpty, "never emitted: \(missing.sorted().prefix(5))")
        let unexpected = zip(killedIDs, killedEmitted).filter { lineByID[$0.0] != $0.1 }
        #expect(unexpected.isEmpty, "lines not emitted by the uninterrupted run: \(unexpected.prefix(3).map(\.0))")
        try Self.expectPublishedSchemas(lines: Array(Set(referenceEmitted).union(killedEmitted)),
                                        history: try reference.owner(), what: "KillTests")
        let differing = Self.differences(history.0, history.1).count + Self.differences(state.0, state.1).count
        let emittedAgain = killedEmitted.count - Set(killedIDs).count
        print("""
            KillTests: \(killPoints) kill points; \(history.0.count) plan_history, \(state.0.count) plan_state and \
            \(rejections.0.count) plan_rejections rows compared, \(differing) differ; \(lineByID.count) notification \
            ids, \(missing.count) never emitted, \(emittedAgain) lines emitted again after a kill, \
            \(fragments.count) partial lines left by a kill
            """)
    }

    /// Every distinct notification line, snapshot and diff a run produced validates against
    /// the published schemas (PublishedSchemaTests; skipped only where python3-jsonschema
    /// is missing outside CI).
    static func expectPublishedSchemas(lines: [String], history: PostgresConnection, what: String) throws {
        let documents = try PublishedSchema.planHistoryDocuments(history)
        #expect(!lines.isEmpty && !documents.snapshots.isEmpty)
        for (schema, batch) in [(PublishedSchema.notificationLine, lines), (.snapshot, documents.snapshots),
                                (.diff, documents.diffs)] {
            guard let check = try schema.validate(batch, what: "\(what): \(schema.rawValue) documents") else { return }
            #expect(check.isValid, "\(check)")
        }
        print("\(what): \(lines.count) notification lines, \(documents.snapshots.count) snapshots and "
              + "\(documents.diffs.count) distinct diffs validated against docs/schemas")
    }

    /// Fingerprints in one list and not the other (at most a few, for a readable failure).
    static func differences(_ a: [String], _ b: [String]) -> [String] {
        Array(Set(a).symmetricDifference(b).sorted().prefix(5))
    }
}

/// Counts the lines of a growing file, reading only what was appended since the last call.
final class LineCounter {
    let url: URL
    private var offset: UInt64 = 0
    private var lines = 0

    init(_ url: URL) { self.url = url }

    func count() throws -> Int {
        guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let data = try handle.readToEnd() ?? Data()
        offset += UInt64(data.count)
        lines += data.withUnsafeBytes { $0.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
        return lines
    }
}
