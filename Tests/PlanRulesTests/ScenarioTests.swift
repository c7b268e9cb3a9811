import Testing
@testable import PlanRules

// Simulated weeks of nightly runs (plan-rules.md section 2), without a database: the job
// runs every 15 minutes (every test zone's midnight falls on a quarter hour, Kathmandu's
// +05:45 and Lord Howe's +10:30 included), the app writes the row at given instants, and
// each run's `newState` is carried into the next.

let scenarioZones = [
    "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu", "Australia/Lord_Howe",
    "America/Santiago", "Europe/Berlin", "America/New_York", "UTC",
]

/// A row write the app makes at `at`.
struct RowWrite {
    let at: Instant
    let change: @Sendable (inout UserSettingsRow) -> Void
}

/// Everything the runs produced, in order.
struct RunLog {
    var history: [(at: Instant, entry: HistoryEntry)] = []
    var notifications: [PlanNotification] = []
    var rejectionRecords = 0
    var evaluations = 0
}

/// Drives one user's runs every 15 minutes from `start` up to (not including) `end`,
/// applying `writes` before any run at or after their instant.
///
/// Besides logging, it asserts on every run: evaluating the same instant again adds
/// nothing; while the runs are continuous (the previous quarter hour ran), a scheduled plan
/// is written exactly at the local midnight of its plan date and the same state one minute
/// earlier is not due; a run that finds a reason without a row
/// write since the previous run is not earlier than the previous `nextScheduledCheck`.
///
/// - Parameter selectedOnly: evaluate only the runs an index on `next_check` (plus a
///   changed row) would select, as the real job does.
func simulate(_ user: inout DecisionHarness, writes: [RowWrite], from start: Instant, to end: Instant,
              selectedOnly: Bool = false, skipping skipped: Set<Instant> = [], log: inout RunLog) {
    var pending = writes.sorted { $0.at < $1.at }[...]
    var nextCheck: Instant? = nil
    var rowWritten = false
    var previousRun: Instant? = nil
    // Runs on the quarter hours of UTC.
    var now = Instant(secondsSinceEpoch: (start.secondsSinceEpoch + 899) / 900 * 900)
    while now < end {
        while let write = pending.first, write.at <= now {
            user.write(at: write.at, write.change)
            rowWritten = true
            pending = pending.dropFirst()
        }
        let selected = rowWritten || nextCheck.map { $0 <= now } ?? false || user.state == nil
        if skipped.contains(now) || (selectedOnly && !selected) {
            now = now.adding(seconds: 900)
            continue
        }
        let before = user.state
        let evaluation = user.run(at: now)
        log.evaluations += 1
        if !evaluation.reasons.isEmpty, !rowWritten, let nextCheck {
            #expect(now >= nextCheck, "a reason at \(now.rfc3339) before the next check \(nextCheck.rfc3339)")
        }
        if let entry = evaluation.history {
            log.history.append((now, entry))
            let continuous = previousRun == now.adding(seconds: -900)
            if continuous, !entry.reasons.contains(.created), !entry.reasons.contains(.manualRerun) {
                #expect(now == user.zone.startOfDay(entry.planDate), "written at \(now.rfc3339)")
                let minuteBefore = evaluate(row: user.row, state: before, at: now.adding(seconds: -60),
                                            manualRerun: false, zones: decisionZones)
                #expect(minuteBefore.reasons.isEmpty && minuteBefore.history == nil)
            }
        }
        log.notifications += evaluation.notification.map { [$0] } ?? []
        if !evaluation.rejections.isEmpty || evaluation.recordedIncomplete { log.rejectionRecords += 1 }
        let again = user.run(at: now)
        #expect(again.history == nil && again.notification == nil && again.rejections.isEmpty
                && !again.recordedIncomplete && again.newState == evaluation.newState)
        nextCheck = evaluation.nextScheduledCheck
        rowWritten = false
        previousRun = now
        now = now.adding(seconds: 900)
    }
}

/// The user signs up (writes the profile row) at 10:05 local on day 0.
func signUp(_ user: DecisionHarness) -> RowWrite {
    RowWrite(at: user.local(day: 0, 10, 5)) { _ in }
}

/// Five weeks from sign-up: born 1993-03-22 (33 on day 20, 2026-03-22), a 1.5 kg loss
/// written on day 3, a 0.5 kg loss on day 8, MATADOR boundaries on days 14 and 28.
func fiveWeeks(_ user: DecisionHarness) -> [RowWrite] {
    [
        RowWrite(at: user.local(day: 0, 10, 5)) { $0.dateOfBirth = "1993-03-22" },
        RowWrite(at: user.local(day: 3, 15, 5)) { $0.currentWeightKg = "80.5" },
        RowWrite(at: user.local(day: 8, 15, 5)) { $0.currentWeightKg = "80.0" },
    ]
}

@Test(arguments: scenarioZones)
func fiveWeeksOfRunsWriteEachPlanAtTheUsersOwnMidnight(zoneName: String) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    simulate(&user, writes: fiveWeeks(user), from: user.local(day: 0, 10, 5), to: user.midnight(day: 35), log: &log)

    let days = log.history.map { $0.entry.planDate.days(since: dayZero) }
    let reasons = log.history.map(\.entry.reasons)
    // Sign-up, the day-3 change on day 4 (not day 3), the day-8 change on day 9, the switches
    // on days 14 and 28, the birthday on day 20.
    #expect(days == [0, 4, 9, 14, 20, 28])
    #expect(reasons == [[.created], [.settingsChanged], [.settingsChanged], [.phaseSwitch], [.birthday], [.phaseSwitch]])
    #expect(log.notifications.map(\.type) == [.planCreated, .targetsUpdated, .phaseSwitch, .targetsUpdated, .phaseSwitch])
    #expect(log.notifications.map { $0.planDate.days(since: dayZero) } == [0, 4, 14, 20, 28])
    let snapshots = log.history.map(\.entry.snapshot)
    guard snapshots.count == 6 else { return }
    // Day 9: 80.5 → 80.0 kg reported is not more than 1.0 kg: the basis and targets stay.
    #expect(snapshots[2].inputs.weightReportedTenthsKg == 800 && snapshots[2].inputs.weightBasisTenthsKg == 805)
    #expect(snapshots[2].targets == snapshots[1].targets)
    // Day 14 maintenance, day 28 deficit again.
    #expect(snapshots[3].phase.phase == .maintenance && snapshots[5].phase.phase == .deficit)
    // Day 20: age 32 → 33 takes 5 × 1 off the BMR (the unrounded value moves by exactly 5).
    #expect(snapshots[4].inputs.age == 33 && snapshots[4].targets.bmr == snapshots[3].targets.bmr - 5)
    #expect(log.rejectionRecords == 0)
}

@Test(arguments: scenarioZones)
func runsSelectedByNextCheckAloneProduceTheSameHistory(zoneName: String) throws {
    var every = try DecisionHarness(zone: zoneName)
    var selected = every
    var everyLog = RunLog()
    var selectedLog = RunLog()
    simulate(&every, writes: fiveWeeks(every), from: every.local(day: 0, 10, 5), to: every.midnight(day: 35),
             log: &everyLog)
    simulate(&selected, writes: fiveWeeks(selected), from: selected.local(day: 0, 10, 5),
             to: selected.midnight(day: 35), selectedOnly: true, log: &selectedLog)
    #expect(selectedLog.history.map(\.entry) == everyLog.history.map(\.entry))
    #expect(selectedLog.history.map(\.at) == everyLog.history.map(\.at))
    #expect(selectedLog.notifications == everyLog.notifications)
    // 35 days × 96 runs; the index selects a handful.
    #expect(selectedLog.evaluations < 20)
}

@Test(arguments: scenarioZones)
func anOutageFromDay5ToDay25CatchesUpInOneRun(zoneName: String) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    simulate(&user, writes: [signUp(user)], from: user.local(day: 0, 10), to: user.midnight(day: 6), log: &log)
    #expect(log.history.count == 1)
    simulate(&user, writes: [], from: user.midnight(day: 25), to: user.midnight(day: 27), log: &log)
    // Day 25 is in block 1 (days 14–27): maintenance, one history row, one switch notification.
    #expect(log.history.count == 2)
    #expect(log.history.last?.entry.reasons == [.phaseSwitch])
    #expect(log.history.last?.entry.snapshot.phase.phase == .maintenance)
    #expect(log.history.last?.entry.planDate == dayZero.adding(days: 25))
    #expect(log.notifications.map(\.type) == [.planCreated, .phaseSwitch])
}

@Test(arguments: scenarioZones)
func anOutageAcrossTwoBoundariesBackInTheSamePhaseWritesNothing(zoneName: String) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    simulate(&user, writes: [signUp(user)], from: user.local(day: 0, 10), to: user.midnight(day: 11), log: &log)
    // Day 30 is in block 2 (days 28–41): deficit again, as on day 10.
    let catchUp = user.run(at: user.midnight(day: 30))
    #expect(catchUp.reasons == [.phaseSwitch])
    #expect(catchUp.outcome == .unchanged && catchUp.history == nil && catchUp.notification == nil)
    #expect(catchUp.nextScheduledCheck == user.midnight(day: 42))
    simulate(&user, writes: [], from: user.midnight(day: 30).adding(seconds: 900), to: user.midnight(day: 42),
             log: &log)
    #expect(log.history.count == 1 && log.notifications.count == 1)   // the first plan only
    let day42 = user.run(at: user.midnight(day: 42))
    #expect(day42.reasons == [.phaseSwitch] && day42.history?.snapshot.phase.phase == .maintenance)
}

@Test(arguments: scenarioZones, [false, true])
func aChangeAt0005OnASwitchDayWaitsWhileTheSwitchHappensOnTime(zoneName: String, midnightRunMissed: Bool) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    let change = RowWrite(at: user.local(day: 14, 0, 5)) { $0.currentWeightKg = "79.0" }
    // When the midnight run is missed, the first run of day 14 comes after the change.
    let skipped: Set<Instant> = midnightRunMissed ? [user.midnight(day: 14)] : []
    simulate(&user, writes: [signUp(user), change], from: user.local(day: 0, 10), to: user.midnight(day: 16),
             skipping: skipped, log: &log)
    let days = log.history.map { $0.entry.planDate.days(since: dayZero) }
    #expect(days == [0, 14, 15])
    guard log.history.count == 3 else { return }
    let (switchDay, changeDay) = (log.history[1].entry, log.history[2].entry)
    #expect(switchDay.reasons == [.phaseSwitch])
    #expect(switchDay.snapshot.inputs.weightReportedTenthsKg == 820)   // the plan's inputs
    #expect(changeDay.reasons == [.settingsChanged])
    #expect(changeDay.snapshot.inputs.weightReportedTenthsKg == 790)
}

@Test(arguments: scenarioZones)
func aRejectedRowVersionIsRecordedOnceAndThePlanStays(zoneName: String) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    let invalid = RowWrite(at: user.local(day: 2, 15, 5)) { $0.currentWeightKg = "600.0" }
    simulate(&user, writes: [signUp(user), invalid], from: user.local(day: 0, 10), to: user.midnight(day: 7), log: &log)
    #expect(log.rejectionRecords == 1)
    #expect(log.history.count == 1)   // the first plan, untouched
    #expect(user.state?.currentPlan?.inputs.weightReportedTenthsKg == 820)
}

@Test(arguments: scenarioZones)
func aManualRerunOnTheSameDayGetsItsOwnNotificationId(zoneName: String) throws {
    var user = try DecisionHarness(zone: zoneName)
    var log = RunLog()
    let change = RowWrite(at: user.local(day: 3, 15, 5)) { $0.currentWeightKg = "80.5" }
    simulate(&user, writes: [signUp(user), change], from: user.local(day: 0, 10), to: user.local(day: 4, 9), log: &log)
    #expect(log.history.last?.entry.planDate == dayZero.adding(days: 4))   // day 4's plan is written
    user.write(at: user.local(day: 4, 9, 5)) { $0.currentWeightKg = "79.0" }
    let rerun = user.run(at: user.local(day: 4, 9, 10), manual: true)
    let day4 = dayZero.adding(days: 4)
    #expect(rerun.reasons == [.manualRerun])
    #expect(rerun.notification?.id == "1:\(day4):targets_updated:1")
    #expect(rerun.newState.historyRowsOnCurrentPlanDate == 2)
    #expect(user.run(at: user.midnight(day: 5)).reasons.isEmpty)
}
