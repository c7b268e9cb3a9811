import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// Sixteen simulated days (first plans, then a MATADOR phase switch for many) of
/// scheduled runs every three hours through PgBouncer in
/// transaction mode (two server connections), with faults drawn at random at every tick —
/// kill -9 anywhere in a run, two runs at once, a fast restart of the PostgreSQL server, a
/// pooler restart — against the same timeline run directly without faults. The app's
/// writes include late rows (imports keeping old `updated_at`, offline edits synced late). A tick whose
/// run failed is run again at the same instant, as ops (or the next timer tick) would.
/// At the end the plans (user, date, reasons, snapshot, previous, diff) and states are the
/// same, and every notification of the fault-free timeline was emitted with the same bytes.
@Suite(.requires(.pgbouncer)) struct SoakTests {
    static let users = 1200
    static let days = 16
    static let ticksPerDay = 8
    static let start = Instant(rfc3339: "2026-03-01T00:00:00Z")!

    enum Fault: CaseIterable {
        /// `killInEmit`: the process kills itself between commit and emit, mid-emit or
        /// between emit and marking emitted (PLAN_REGEN_FAULT, FaultInjection.swift).
        case none, killAfterPlans, killAtStartup, killInEmit, overlap, serverRestart, poolerRestart
    }

    @Test func simulatedDaysWithRandomFaultsThroughTheTransactionPoolerEndWithTheFaultFreeHistory() throws {
        try JobDatabase.withFresh { reference in
            try PoolerTests.withFolder { folder in
                let cluster = try ThrowawayCluster()
                try cluster.connect().execute("CREATE DATABASE app", purpose: "creating the app database")
                let app = try cluster.connect(database: "app")
                try Migrator(connection: app).apply(Migration.reference + Migration.planRegen)
                try DemoUsers.insert(count: Self.users, writtenBefore: Self.start, into: app)
                try reference.seed(users: Self.users, writtenBefore: Self.start)
                let bouncer = try PgBouncer(server: cluster.host, port: cluster.port, poolMode: .transaction, poolSize: 2)
                defer { bouncer.stop() }
                let url = bouncer.conninfo(database: "app")
                let referenceLines = folder.appendingPathComponent("reference.jsonl").path
                let faultyLines = folder.appendingPathComponent("faulty.jsonl").path
                var random = SplitMix64(seed: 20_261_124)
                var faults: [Fault: Int] = [:]
                var failedRuns = 0
                var hits = 0  // faults that met a run still going

                for tick in 0..<(Self.days * Self.ticksPerDay) {
                    let asOf = Self.start.adding(seconds: Int64(tick) * 3 * 3600)
                    if tick % Self.ticksPerDay == 4 {
                        // Midday: the app changes some users, the same on both databases.
                        let day = tick / Self.ticksPerDay
                        for connection in [try reference.owner(), try cluster.connect(database: "app")] {
                            try connection.execute(
                                """
                                UPDATE user_settings SET current_weight_kg = current_weight_kg - 0.5, updated_at = \(asOf)
                                WHERE user_id % 53 = \(day)
                                """, purpose: "the app changing users on day \(day)")
                        }
                    }
                    if tick % Self.ticksPerDay == 2 || tick % Self.ticksPerDay == 6 {
                        // Late rows (plan-rules.md section 2): in the morning five users
                        // imported with rows 30 days old; in the evening offline edits made
                        // 8 hours before sync, older than the watermark's look-back.
                        let day = tick / Self.ticksPerDay
                        let lateRows: SQLQuery = tick % Self.ticksPerDay == 2
                            ? """
                                INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg,
                                    target_weight_kg, primary_goal, target_date, activity_level, dietary_preferences,
                                    allergies, meals_per_day, timezone, onboarding_completed, locale, unit_system, updated_at)
                                SELECT 100000 + \(day) * 10 + g, date_of_birth, gender, height_cm, current_weight_kg,
                                       target_weight_kg, primary_goal, target_date, activity_level, dietary_preferences,
                                       allergies, meals_per_day, timezone, onboarding_completed, locale, unit_system,
                                       \(asOf.adding(seconds: -30 * 86_400))::timestamptz
                                FROM user_settings, generate_series(1, 5) AS g WHERE user_id = \(day + 1)
                                """
                            : """
                                UPDATE user_settings SET current_weight_kg = current_weight_kg - 0.3,
                                       updated_at = \(asOf.adding(seconds: -8 * 3600))
                                WHERE user_id % 61 = \(day) AND user_id < 100000
                                """
                        for connection in [try reference.owner(), try cluster.connect(database: "app")] {
                            try connection.execute(lateRows, purpose: "late rows on day \(day)")
                        }
                    }
                    let arguments = ["--as-of", asOf.rfc3339, "--batch-size", "20"]
                    let expected = try reference.run(arguments + ["--notifications", referenceLines])
                    #expect(expected.status == 0, "reference tick \(tick): \(expected.stderr)")

                    let fault = tick == 0 ? .killAfterPlans : Fault.allCases.randomElement(using: &random)!
                    faults[fault, default: 0] += 1
                    let run = { (extra: [String], environment: [String: String]) throws -> JobProcess in
                        try JobProcess(["run", "--database-url", url, "--notifications", faultyLines] + arguments + extra,
                                       environment: environment)
                    }
                    let watcher = PlanTables(connection: try cluster.connect(database: "app"))
                    let plansBefore = try watcher.count("SELECT count(*) FROM plan_history")
                    let runsBefore = try watcher.count("SELECT count(*) FROM plan_runs")
                    let threshold = plansBefore + 1 + Int(random.next() % 40)
                    switch fault {
                    case .none:
                        _ = try run([], [:]).waitForExit()
                    case .killInEmit:
                        let point = ["before-emit", "mid-emit", "after-emit"].randomElement(using: &random)!
                        if try run([], ["PLAN_REGEN_FAULT": "\(point):1"]).waitForExit().killed { hits += 1 }
                    case .killAfterPlans, .killAtStartup:
                        let job = try run(["--workers", "2"], [:])
                        try waitUntil("tick \(tick): the run to reach its kill point") {
                            if !job.isRunning { return true }
                            if fault == .killAtStartup {
                                return try watcher.count("SELECT count(*) FROM plan_runs") > runsBefore
                            }
                            return try watcher.count("SELECT count(*) FROM plan_history") >= threshold
                        }
                        job.killNow()
                        if try job.waitForExit().killed { hits += 1 }
                    case .overlap:
                        let jobs = [try run([], [:]), try run(["--workers", "2"], [:])]
                        for job in jobs {
                            let result = try job.waitForExit()
                            #expect(result.status == 0, "tick \(tick), overlapping: \(result.stderr)")
                        }
                    case .serverRestart, .poolerRestart:
                        let job = try run([], [:])
                        try waitUntil("tick \(tick): the run to write plans") {
                            !job.isRunning || (try? watcher.count("SELECT count(*) FROM plan_history")) ?? 0 >= threshold
                        }
                        if job.isRunning { hits += 1 }
                        if fault == .serverRestart {
                            try cluster.stopServer()
                            try cluster.start()
                        } else {
                            try bouncer.restart()
                        }
                        _ = try job.waitForExit()
                    }
                    // The tick completes: a run at the same instant succeeds (a dead run's
                    // claims are taken over at once, its process being gone).
                    var attempts = 0
                    while true {
                        let completion = try run([], [:]).waitForExit()
                        if completion.status == 0 { break }
                        failedRuns += 1
                        attempts += 1
                        #expect(attempts < 3, "tick \(tick) after \(fault): \(completion.stderr)")
                        if attempts >= 3 { break }
                    }
                }

                let expected = PlanTables(connection: try reference.owner())
                let actual = PlanTables(connection: try cluster.connect(database: "app"))
                let plans = (try expected.planFingerprints(), try actual.planFingerprints())
                #expect(plans.0.count > Self.users)
                #expect(plans.0 == plans.1, "plan_history differs in \(KillTests.differences(plans.0, plans.1))")
                let states = (try expected.stateFingerprints(), try actual.stateFingerprints())
                #expect(states.0 == states.1, "plan_state differs in \(KillTests.differences(states.0, states.1))")
                let foundLate = try expected.count("SELECT coalesce(sum(found_late), 0)::int8 FROM plan_runs")
                #expect(foundLate >= Self.days * 5, "every imported user found late, and the late syncs")
                let consistency = try actual.consistency()
                #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
                #expect(try actual.heldClaims() == 0)
                #expect(try actual.advisoryLocks() == 0)

                let referenceEmitted = try PoolerTests.lines(referenceLines)
                let lineByID = Dictionary(uniqueKeysWithValues: zip(try notificationIDs(referenceEmitted), referenceEmitted))
                let emitted = try PoolerTests.lines(faultyLines).filter(PoolerTests.isJSON)
                let emittedIDs = try notificationIDs(emitted)
                let missing = Set(lineByID.keys).subtracting(emittedIDs)
                #expect(missing.isEmpty, "never emitted: \(missing.sorted().prefix(5))")
                #expect(zip(emittedIDs, emitted).allSatisfy { lineByID[$0.0] == $0.1 }, "a line differs")
                try KillTests.expectPublishedSchemas(lines: Array(Set(referenceEmitted).union(emitted)),
                                                     history: try cluster.connect(database: "app"), what: "SoakTests")
                print("""
                    SoakTests: \(Self.days) days, \(Self.days * Self.ticksPerDay) ticks, \(foundLate) users found late, faults \
                    \(faults.sorted { "\($0.key)" < "\($1.key)" }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")); \
                    \(hits) met a run in progress; \(failedRuns) reruns failed again; \(plans.0.count) plans and \(states.0.count) states compared, \
                    \(KillTests.differences(plans.0, plans.1).count) differ; \(lineByID.count) notification ids, \
                    \(missing.count) never emitted, \(emitted.count - Set(emittedIDs).count) emitted again \
                    (\(try PoolerTests.lines(faultyLines).count - emitted.count) partial lines left by a kill)
                    """)
            }
        }
    }
}
