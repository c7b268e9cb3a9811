import PlanRules
import Testing

/// `--user` (plan-rules.md section 2, reason manual_rerun) and `--dry-run`, both with
/// `--as-of`.
@Suite struct ManualRerunTests {
    /// A rerun the same local day as the first plan recomputes from the live row at once
    /// and writes a second row for the date, whose notification id ends in `:1`.
    @Test func aSameDayManualRerunWritesASecondRowWithNotificationSuffix1() throws {
        try RunDriver.withFresh { driver in
            let zone = "America/New_York"
            let start = try #require(Instant(rfc3339: "2026-04-10T13:00:00Z"))  // 09:00 local
            try driver.insert(TestUser(userID: 21, timezone: zone, updatedAt: start.adding(seconds: -3600)))
            try driver.insert(TestUser(userID: 22, timezone: zone, updatedAt: start.adding(seconds: -3600)))
            try driver.run(at: start)
            let today = try LocalTime.date(at: start, in: zone)

            try driver.setWeight(of: 21, to: "85.0", at: start.adding(minutes: 60))
            let rerun = try driver.run(at: start.adding(minutes: 120), users: [21])
            #expect(rerun.counts.changed == 1 && rerun.counts.due == 1)
            let history = try driver.history(of: 21)
            #expect(history.map(\.planDate) == [today, today])
            #expect(history.map(\.seq) == [0, 1])
            #expect(history.last?.reasons.last == "manual_rerun")
            #expect(history.last?.weightReported == "85.0")
            #expect(try driver.emittedNotifications().last?.id == "21:\(today):targets_updated:1")
            // Nobody else was touched.
            #expect(try driver.state(of: 22)?.updatedByRun != rerun.runID)

            // The change was applied by the rerun: tomorrow's midnight has nothing to do.
            let tomorrow = try LocalTime.midnight(of: today.adding(days: 1), in: zone)
            let scheduled = try driver.run(at: tomorrow)
            #expect(scheduled.counts.due == 0)
            #expect(try driver.history(of: 21).count == 2)
        }
    }

    /// An id without a `user_settings` row is reported; the others are done.
    @Test func anUnknownUserIsReportedAndTheOthersAreDone() throws {
        try RunDriver.withFresh { driver in
            let now = try #require(Instant(rfc3339: "2026-04-10T13:00:00Z"))
            try driver.insert(TestUser(userID: 5, updatedAt: now.adding(seconds: -3600)))
            let summary = try driver.run(at: now, users: [404, 5])
            #expect(summary.unknownUsers == [404])
            #expect(summary.counts.unknownUsers == 1)
            #expect(summary.counts.created == 1)
            #expect(try driver.history(of: 5).first?.reasons == ["created", "manual_rerun"])
            #expect(try driver.state(of: 404) == nil)
        }
    }

    /// `--dry-run` prints each due user's outcome, diff and notification and writes
    /// nothing: no table changes (not even `plan_runs`), no notification line.
    @Test func aDryRunPrintsDiffsAndNotificationsAndWritesNothing() throws {
        try RunDriver.withFresh { driver in
            let zone = "Europe/Berlin"
            let start = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 31, timezone: zone, updatedAt: start.adding(seconds: -3600)))
            try driver.insert(TestUser(userID: 32, heightCm: "320", timezone: zone,
                                       updatedAt: start.adding(seconds: -3600)))
            try driver.run(at: start)
            try driver.setWeight(of: 31, to: "84.0", at: start.adding(minutes: 30))
            let linesBefore = try driver.emittedNotifications()
            let countsBefore = try driver.tableCounts()
            let stateBefore = try driver.state(of: 31)
            let midnight = try LocalTime.midnight(of: LocalTime.date(at: start, in: zone).adding(days: 1), in: zone)

            let dry = try driver.run(at: midnight, dryRun: true)
            let manualDry = try driver.run(at: midnight, users: [31, 32], dryRun: true)

            #expect(dry.runID == nil && manualDry.runID == nil)
            #expect(try driver.tableCounts() == countsBefore)
            #expect(try driver.state(of: 31) == stateBefore)
            #expect(try driver.emittedNotifications() == linesBefore)
            #expect(dry.counts.changed == 1 && manualDry.counts.changed == 1 && manualDry.counts.rejected == 1)

            let report = try driver.dryRunReport().map { try DryRunLine.parse($0) }
            #expect(report.map(\.userID) == [31, 31, 32])
            let scheduled = try #require(report.first)
            #expect(scheduled.outcome == "changed" && scheduled.reasons == ["settings_changed"])
            #expect(scheduled.diffPaths.contains("inputs.weight_kg_reported"))
            #expect(scheduled.notificationType == "targets_updated")
            #expect(report[1].reasons == ["settings_changed", "manual_rerun"])
            #expect(report[2].rejectedFields == ["height_cm"])

            // The real run afterwards does what the dry run printed.
            let real = try driver.run(at: midnight)
            #expect(real.counts.changed == 1)
            #expect(try driver.emittedNotifications().last?.type == "targets_updated")
        }
    }
}
