import PlanRules
import Testing

/// Five simulated weeks of scheduled runs (plan-rules.md section 2) over one database
/// holding a MATADOR user and a neighbour without a cycle in each of eight zones, from +14:00 to −11:00, with half and
/// quarter hours and the March/April DST changes of New York, Berlin, Santiago and Lord
/// Howe (30 minutes).
///
/// Runs every 15 minutes for weeks would be thousands of runs; instead the runs are the
/// instants where something can go wrong: each user's midnight of every event date, 15
/// minutes before and after it, one hour after each settings write, and one run a day at
/// 06:00 UTC (just after midnight east of +18:00−14:00, mid-evening in the west).
@Suite struct SimulatedWeeksTests {
    static let zones = [
        "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu", "Australia/Lord_Howe",
        "America/Santiago", "Europe/Berlin", "America/New_York", "UTC",
    ]

    /// A user of the simulation: id, zone, and C, the first plan date (cycle start).
    struct SimulatedUser {
        var userID: Int64
        var zone: String
        var cycleStart: LocalDate

        func day(_ n: Int) -> LocalDate { cycleStart.adding(days: n) }
    }

    struct AppWrite {
        var at: Instant
        var userID: Int64
        var weightKg: String
    }

    @Test func everyPlanAppearsAtItsOwnLocalMidnightOnceWithOneNotificationPerChange() throws {
        try RunDriver.withFresh { driver in
            let start = try #require(Instant(rfc3339: "2026-03-02T06:00:00Z"))
            var users: [SimulatedUser] = []
            var writes: [AppWrite] = []
            for (index, zone) in Self.zones.enumerated() {
                let user = SimulatedUser(userID: Int64(101 + index), zone: zone,
                                         cycleStart: try LocalTime.date(at: start, in: zone))
                users.append(user)
                // Turns a year older on day 7 of the cycle.
                let birthday = user.day(7)
                try driver.insert(TestUser(
                    userID: user.userID, dateOfBirth: "1990-\(twoDigits(birthday.month))-\(twoDigits(birthday.day))",
                    timezone: zone, updatedAt: start.adding(seconds: -86_400)))
                // Day 3, 10:00 local: −3 kg (a new basis weight). Day 10, 09:00: −0.8 kg (kept basis).
                writes.append(AppWrite(at: try LocalTime.wallTime(user.day(3), hour: 10, in: zone),
                                       userID: user.userID, weightKg: "87.0"))
                writes.append(AppWrite(at: try LocalTime.wallTime(user.day(10), hour: 9, in: zone),
                                       userID: user.userID, weightKg: "86.2"))
                // A neighbour without a cycle whose only event is a birthday on day 20.
                let steadyBirthday = user.day(20)
                try driver.insert(TestUser(
                    userID: user.userID + 100,
                    dateOfBirth: "1985-\(twoDigits(steadyBirthday.month))-\(twoDigits(steadyBirthday.day))",
                    primaryGoal: "maintain_weight", timezone: zone, updatedAt: start.adding(seconds: -86_400)))
            }

            var instants: Set<Instant> = [start]
            var midnights: Set<Instant> = []
            for user in users {
                for day in [4, 7, 11, 14, 20, 28] {
                    let midnight = try LocalTime.midnight(of: user.day(day), in: user.zone)
                    midnights.insert(midnight)
                    instants.formUnion([midnight.adding(minutes: -15), midnight, midnight.adding(minutes: 15)])
                }
            }
            for write in writes { instants.insert(write.at.adding(minutes: 60)) }
            for day in 1...34 { instants.insert(start.adding(seconds: Int64(day) * 86_400)) }

            var pendingWrites = writes.sorted { $0.at < $1.at }[...]
            for instant in instants.sorted() {
                while let write = pendingWrites.first, write.at <= instant {
                    try driver.setWeight(of: write.userID, to: write.weightKg, at: write.at)
                    pendingWrites = pendingWrites.dropFirst()
                }
                try driver.run(at: instant)
                if midnights.contains(instant) {
                    // The same --as-of again adds nothing and touches nobody.
                    let before = try driver.tableCounts()
                    let linesBefore = try driver.emittedNotifications().count
                    let again = try driver.run(at: instant)
                    var after = try driver.tableCounts()
                    after["plan_runs"]! -= 1
                    #expect(after == before, "second run at \(instant.rfc3339)")
                    #expect(try driver.emittedNotifications().count == linesBefore)
                    #expect(again.counts.due == 0)
                    let touched = try driver.connection.query(
                        "SELECT count(*) FROM plan_state WHERE updated_by_run = \(again.runID)",
                        purpose: "counting users the second run touched").singleRow().int(0)
                    #expect(touched == 0, "second run at \(instant.rfc3339) rewrote plan_state")
                }
            }
            #expect(pendingWrites.isEmpty)

            let notifications = try driver.emittedNotifications()
            for user in users {
                try expectSimulatedWeeks(of: user, history: driver.history(of: user.userID),
                                         notifications: notifications.filter { $0.userID == user.userID })
                // The neighbour: nothing on the cycle's dates, one row on the birthday.
                let steady = try driver.history(of: user.userID + 100)
                #expect(steady.map(\.planDate) == [user.day(0), user.day(20)], "neighbour in \(user.zone)")
                #expect(steady.map(\.reasons) == [["created"], ["birthday"]])
                #expect(steady.last?.generatedAt == (try LocalTime.midnight(of: user.day(20), in: user.zone)))
                #expect(steady.map(\.phase) == ["none", "none"])
            }
            // Every committed notification was emitted exactly once, as committed.
            let outbox = try driver.outbox()
            #expect(outbox.allSatisfy { $0.emitted })
            #expect(notifications.map(\.raw).sorted() == outbox.map(\.payload).sorted())
            #expect(Set(notifications.map(\.id)).count == notifications.count)
        }
    }

    /// Day 0 created; day 4 the −3 kg change (set on day 3); day 7 the birthday; day 11
    /// the −0.8 kg change (history, no notification, same targets); day 14 maintenance;
    /// day 28 deficit again. Every scheduled row is generated exactly at its local
    /// midnight — a run 15 minutes earlier found nothing.
    private func expectSimulatedWeeks(of user: SimulatedUser, history: [HistoryRow],
                                      notifications: [NotificationLine]) throws {
        let label = "user \(user.userID) in \(user.zone)"
        #expect(history.map(\.planDate) == [0, 4, 7, 11, 14, 28].map(user.day), "\(label): plan dates")
        #expect(history.map(\.reasons) == [["created"], ["settings_changed"], ["birthday"], ["settings_changed"],
                                           ["phase_switch"], ["phase_switch"]], "\(label): reasons")
        #expect(history.map(\.phase) == ["deficit", "deficit", "deficit", "deficit", "maintenance", "deficit"],
                "\(label): phases")
        #expect(history.allSatisfy { $0.seq == 0 })
        for row in history.dropFirst() {
            #expect(row.generatedAt == (try LocalTime.midnight(of: row.planDate, in: user.zone)),
                    "\(label): plan for \(row.planDate) written at \(row.generatedAt.rfc3339)")
        }
        guard history.count == 6 else { return }
        let (created, heavier, birthday, lighter) = (history[0], history[1], history[2], history[3])
        #expect(created.weightBasis == "90.0")
        #expect(heavier.weightReported == "87.0" && heavier.weightBasis == "87.0")
        // BMR = 10 w + 6.25 h − 5 age + 5: one year older is exactly 5 kcal less.
        #expect(birthday.age == heavier.age + 1)
        #expect(birthday.bmr == heavier.bmr - 5)
        // A change of 0.8 kg keeps the basis weight: same targets, reported weight updated.
        #expect(lighter.weightReported == "86.2" && lighter.weightBasis == "87.0")
        #expect(lighter.targetsJSON == birthday.targetsJSON)
        #expect(lighter.diffPaths.contains("inputs.weight_kg_reported"))
        #expect(!lighter.diffPaths.contains { $0.hasPrefix("targets.") })

        let expected: [(day: Int, type: String)] = [
            (0, "plan_created"), (4, "targets_updated"), (7, "targets_updated"), (14, "phase_switch"),
            (28, "phase_switch"),
        ]
        #expect(notifications.map(\.id) == expected.map { "\(user.userID):\(user.day($0.day)):\($0.type):0" },
                "\(label): notifications")
        #expect(notifications.allSatisfy { $0.timezone == user.zone && $0.schemaVersion == 1 })
        for notification in notifications {
            let row = try #require(history.first { "\($0.planDate)" == notification.planDate })
            #expect(notification.createdAt == row.generatedAt.rfc3339)
            // Pushed at 08:00 local on the plan date, or at once when computed later.
            let eightAM = try LocalTime.wallTime(row.planDate, hour: 8, in: user.zone)
            #expect(Instant(rfc3339: notification.deliverAfter) == max(eightAM, row.generatedAt))
        }
    }

    private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
