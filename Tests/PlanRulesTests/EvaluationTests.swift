import Testing
@testable import PlanRules
import ZoneFiles

// The decision for one user at one instant (plan-rules.md sections 1.1, 1.2 and 2), rule
// by rule. The profile is example 1's: male, 178.0 cm, 82.0 kg, lose_weight to 75.0 kg,
// moderately active, born 1993-06-15.

/// The system zone database, loaded once for the decision tests.
let decisionZones: ZoneDatabase = (try? ZoneDatabase.loadSystem()) ?? ZoneDatabase(version: "missing", zones: [])

/// 2026-03-02, day 0 of the test user's MATADOR cycle.
let dayZero = LocalDate(year: 2026, month: 3, day: 2)

func profileRow(timezone: String, updatedAt: Instant?, userID: Int64 = 1) -> UserSettingsRow {
    UserSettingsRow(userID: userID, dateOfBirth: "1993-06-15", gender: "male", heightCm: "178.0",
                    currentWeightKg: "82.0", targetWeightKg: "75.0", primaryGoal: "lose_weight",
                    targetDate: "2026-09-01", activityLevel: "moderately_active", dietaryPreferences: [],
                    allergies: [], mealsPerDay: 3, timezone: timezone, onboardingCompleted: true,
                    updatedAt: updatedAt)
}

/// One user, their live row and what the job remembers, driven through `evaluate`.
struct DecisionHarness {
    let zone: Zone
    var row: UserSettingsRow?
    var state: UserPlanState?

    init(zone name: String) throws {
        zone = try #require(decisionZones.zone(named: name))
    }

    /// `hour:minute` local wall time on `day` days after day 0.
    func local(day: Int, _ hour: Int, _ minute: Int = 0) -> Instant {
        zone.localWallTime(dayZero.adding(days: day), secondsIntoDay: hour * 3600 + minute * 60)
    }

    func midnight(day: Int) -> Instant { zone.startOfDay(dayZero.adding(days: day)) }

    /// The app writes the row at `instant` (setting `updated_at`).
    mutating func write(at instant: Instant, _ change: (inout UserSettingsRow) -> Void) {
        var updated = row ?? profileRow(timezone: zone.name, updatedAt: instant)
        change(&updated)
        updated.updatedAt = instant
        row = updated
    }

    /// Signs the user up at `hour:00` local on day 0 and runs the job right after.
    @discardableResult
    mutating func signUp(atHour hour: Int = 10) -> Evaluation {
        write(at: local(day: 0, hour)) { _ in }
        return run(at: local(day: 0, hour, 15))
    }

    @discardableResult
    mutating func run(at instant: Instant, manual: Bool = false, rollout: RulesRollout = RulesRollout()) -> Evaluation {
        let evaluation = evaluate(row: row, state: state, at: instant, manualRerun: manual, zones: decisionZones,
                                  rollout: rollout)
        state = evaluation.newState
        return evaluation
    }
}

// MARK: - created

/// `position` is each reason's place in `allCases`: the sort order of `reasons` and the
/// index the run counts reasons by.
@Test func aDueReasonsPositionIsItsPlaceInAllCases() {
    #expect(DueReason.allCases.map(\.position) == Array(DueReason.allCases.indices))
    #expect(DueReason.allCases.sorted() == DueReason.allCases)
    #expect([DueReason.manualRerun, .created, .birthday].sorted() == [.created, .birthday, .manualRerun])
}

@Test func theFirstPlanIsMadeAtOnceForTodayWithReasonCreated() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    let evaluation = user.signUp(atHour: 10)
    #expect(evaluation.outcome == .created)
    #expect(evaluation.planDate == dayZero)
    #expect(evaluation.reasons == [.created])
    let history = try #require(evaluation.history)
    #expect(history.previous == nil && history.diff.isEmpty)
    #expect(history.snapshot.reasons == [.created])
    #expect(evaluation.notification?.id == "1:2026-03-02:plan_created:0")
    #expect(evaluation.newState.currentPlan == history.snapshot)
    #expect(evaluation.newState.lastEvaluatedDate == dayZero)
    #expect(evaluation.newState.seenUpdatedAt == user.row?.updatedAt)
    #expect(evaluation.newState.historyRowsOnCurrentPlanDate == 1)
    // Next: the day-14 boundary 2026-03-16 (birthday 06-15 is later), Berlin midnight = 23:00Z.
    #expect(evaluation.nextScheduledCheck == Instant(rfc3339: "2026-03-15T23:00:00Z"))
}

@Test func anIncompleteRowWithoutAPlanIsRecordedOnceAndRetriedWhenTheRowChanges() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.write(at: user.local(day: 0, 9)) { $0.onboardingCompleted = false }
    let first = user.run(at: user.local(day: 0, 9, 15))
    #expect(first.outcome == .skippedIncomplete)
    #expect(first.recordedIncomplete && first.rejections.isEmpty && first.history == nil)
    let again = user.run(at: user.local(day: 0, 9, 30))
    #expect(again.outcome == .notDue && !again.recordedIncomplete)
    #expect(again.nextScheduledCheck == nil)
    user.write(at: user.local(day: 0, 11)) { $0.onboardingCompleted = true }
    #expect(user.run(at: user.local(day: 0, 11, 15)).outcome == .created)
}

@Test func aRejectedRowIsRecordedOncePerVersionAndRulesVersion() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.write(at: user.local(day: 0, 9)) {
        $0.heightCm = "20"
        $0.mealsPerDay = 11
    }
    let first = user.run(at: user.local(day: 0, 9, 15))
    #expect(first.outcome == .rejected)
    #expect(first.rejections == [
        FieldRejection(field: .heightCm, message: "Height must be at least 50 cm (1'8\")"),
        FieldRejection(field: .mealsPerDay, message: "Maximum 10 meals per day"),
    ])
    #expect(user.run(at: user.local(day: 0, 9, 30)).rejections.isEmpty)
    #expect(user.run(at: user.local(day: 5, 0)).outcome == .notDue)
    // Recorded under other rules: judged and recorded again.
    user.state?.judgedRulesVersion = "2025.9"
    #expect(user.run(at: user.local(day: 5, 0, 15)).rejections.count == 2)
}

// MARK: - settings_changed timing

@Test func aChangeAt2359LocalAppliesTheNextDay() throws {
    var user = try DecisionHarness(zone: "Asia/Kathmandu")
    user.signUp()
    user.write(at: user.local(day: 3, 23, 59)) { $0.currentWeightKg = "80.5" }
    let sameDay = user.run(at: user.local(day: 3, 23, 59).adding(seconds: 30))
    #expect(sameDay.outcome == .notDue && sameDay.reasons.isEmpty)
    #expect(sameDay.nextScheduledCheck == user.midnight(day: 4))
    let nextDay = user.run(at: user.midnight(day: 4))
    #expect(nextDay.reasons == [.settingsChanged])
    #expect(nextDay.history?.snapshot.inputs.weightReportedTenthsKg == 805)
    #expect(nextDay.notification?.type == .targetsUpdated)
}

@Test func aRowRewrittenAfterMidnightBeforeItWasAppliedWaitsForTheFollowingMidnight() throws {
    var user = try DecisionHarness(zone: "America/New_York")
    user.signUp()
    user.write(at: user.local(day: 3, 15)) { $0.currentWeightKg = "80.5" }
    // No run at day 4's midnight (an outage); the row is written again at 00:20.
    user.write(at: user.local(day: 4, 0, 20)) { $0.currentWeightKg = "80.0" }
    let late = user.run(at: user.local(day: 4, 0, 30))
    #expect(late.outcome == .notDue && late.history == nil)
    #expect(late.nextScheduledCheck == user.midnight(day: 5))
    let applied = user.run(at: user.midnight(day: 5))
    #expect(applied.reasons == [.settingsChanged])
    #expect(applied.planDate == dayZero.adding(days: 5))
    #expect(applied.history?.snapshot.inputs.weightReportedTenthsKg == 800)
}

@Test func aVersionOverwrittenBeforeItTakesEffectIsNeverJudged() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.signUp()
    user.write(at: user.local(day: 3, 15)) { $0.heightCm = "20" }
    #expect(user.run(at: user.local(day: 3, 15, 15)).rejections.isEmpty)
    user.write(at: user.local(day: 3, 16)) { $0.heightCm = "180.0" }
    let applied = user.run(at: user.midnight(day: 4))
    #expect(applied.rejections.isEmpty && applied.outcome == .changed)
    #expect(applied.history?.snapshot.inputs.heightTenthsCm == 1800)
}

@Test func whileTheLiveRowIsRejectedScheduledEventsRegenerateFromThePlanInputs() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.signUp()
    user.write(at: user.local(day: 10, 12)) {
        $0.heightCm = "20"
        $0.currentWeightKg = "70.0"
    }
    let rejected = user.run(at: user.midnight(day: 11))
    #expect(rejected.outcome == .rejected && rejected.reasons.isEmpty && rejected.history == nil)
    #expect(rejected.rejections.map(\.field) == [.heightCm])
    #expect(user.run(at: user.local(day: 11, 0, 15)).rejections.isEmpty)
    // Day 14: the switch happens from the plan's inputs (178.0 cm, 82.0 kg), not judged again.
    let phaseSwitch = user.run(at: user.midnight(day: 14))
    #expect(phaseSwitch.reasons == [.phaseSwitch])
    #expect(phaseSwitch.rejections.isEmpty)
    let snapshot = try #require(phaseSwitch.history?.snapshot)
    #expect(snapshot.inputs.heightTenthsCm == 1780 && snapshot.inputs.weightReportedTenthsKg == 820)
    #expect(snapshot.phase.phase == .maintenance)
}

@Test func everyReasonIsJudgedOnTheEffectiveInputsBirthdayIncluded() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.signUp()   // age 32 on 2026-03-02 (born 1993-06-15)
    // A corrected date of birth whose birthday is day 2, 2026-03-04: 33 from that day.
    user.write(at: user.local(day: 1, 12)) { $0.dateOfBirth = "1993-03-04" }
    let evaluation = user.run(at: user.midnight(day: 2))
    #expect(evaluation.reasons == [.settingsChanged, .birthday])
    #expect(evaluation.history?.snapshot.inputs.age == 33)
}

// MARK: - zones

@Test func planDatesUseTheLiveZoneEvenWhileItsChangeIsPending() throws {
    var user = try DecisionHarness(zone: "America/New_York")
    user.signUp(atHour: 12)   // 2026-03-02 12:00 EST = 17:00Z
    let moved = try #require(Instant(rfc3339: "2026-03-02T18:00:00Z"))   // 2026-03-03 08:00 in Kiritimati (+14)
    user.write(at: moved) { $0.timezone = "Pacific/Kiritimati" }
    let pending = user.run(at: moved.adding(seconds: 3600))
    #expect(pending.planDate == LocalDate(year: 2026, month: 3, day: 3))
    #expect(pending.outcome == .notDue)
    // The change takes effect at Kiritimati's next midnight: 2026-03-04 00:00 +14 = 2026-03-03T10:00Z.
    #expect(pending.nextScheduledCheck == Instant(rfc3339: "2026-03-03T10:00:00Z"))
    let applied = user.run(at: try #require(Instant(rfc3339: "2026-03-03T10:00:00Z")))
    #expect(applied.reasons == [.settingsChanged])
    #expect(applied.history?.snapshot.planDate == LocalDate(year: 2026, month: 3, day: 4))
    #expect(applied.history?.snapshot.inputs.timezone == "Pacific/Kiritimati")
}

@Test func anUnknownLiveZoneFallsBackToTheCurrentPlansZoneOrUTC() throws {
    let at = try #require(Instant(rfc3339: "2026-03-02T23:30:00Z"))
    let newcomer = evaluate(row: profileRow(timezone: "Mars/Olympus", updatedAt: at.adding(seconds: -60)),
                            state: nil, at: at, manualRerun: false, zones: decisionZones)
    #expect(newcomer.planDate == dayZero)   // UTC: still 2026-03-02
    #expect(newcomer.rejections == [FieldRejection(field: .timezone, message: "Unknown time zone 'Mars/Olympus'")])

    var user = try DecisionHarness(zone: "Pacific/Kiritimati")
    user.signUp()
    user.write(at: at.adding(seconds: -60)) { $0.timezone = "Mars/Olympus" }
    // In Kiritimati (+14) 23:30Z is already 2026-03-03 13:30.
    #expect(user.run(at: at).planDate == LocalDate(year: 2026, month: 3, day: 3))
}

@Test func noScheduledRegenerationForADateOnOrBeforeTheLastEvaluatedDate() throws {
    // Created in Kiritimati (+14) for 2026-03-03, then the user moves to Pago Pago (−11).
    var user = try DecisionHarness(zone: "Pacific/Kiritimati")
    let created = user.signUp(atHour: 1).planDate   // 2026-03-02 01:00 +14 → plan date 2026-03-02
    #expect(created == dayZero)
    let moved = try #require(Instant(rfc3339: "2026-03-01T12:30:00Z"))   // 2026-03-02 02:30 +14
    user.write(at: moved) { $0.timezone = "Pacific/Pago_Pago" }
    // Pago Pago's 2026-03-02 starts at 11:00Z: D = 2026-03-02 = E, so nothing although the
    // change is before that midnight.
    let sameDate = user.run(at: try #require(Instant(rfc3339: "2026-03-02T11:00:00Z")))
    #expect(sameDate.planDate == dayZero && sameDate.outcome == .notDue)
    #expect(sameDate.nextScheduledCheck == Instant(rfc3339: "2026-03-03T11:00:00Z"))
    // The waiting version is recorded as scheduled: runs before that check need not read it.
    #expect(sameDate.newState.scheduledUpdatedAt == moved)
    let next = user.run(at: try #require(Instant(rfc3339: "2026-03-03T11:00:00Z")))
    #expect(next.reasons == [.settingsChanged])
    #expect(next.planDate == LocalDate(year: 2026, month: 3, day: 3))
    #expect(next.newState.scheduledUpdatedAt == nil && next.newState.seenUpdatedAt == moved)
}

// MARK: - rules_changed, unchanged plans

@Test func anotherRulesVersionRegeneratesTheNextDayAndTheDiffShowsIt() throws {
    var user = try DecisionHarness(zone: "UTC")
    user.signUp()
    user.state?.currentPlan?.rulesVersion = "2025.9"
    let rollout = RulesRollout(start: user.local(day: 0, 12))
    #expect(user.run(at: user.local(day: 0, 12), rollout: rollout).outcome == .notDue)   // not on or before E
    let evaluation = user.run(at: user.midnight(day: 1), rollout: rollout)
    #expect(evaluation.reasons == [.rulesChanged])
    #expect(evaluation.outcome == .changed)
    #expect(evaluation.history?.diff.contains(FieldChange(path: .rulesVersion, before: .string("2025.9"),
                                                        after: .string("2026.1"))) == true)
    #expect(evaluation.notification == nil)   // targets unchanged
}

@Test func anUnchangedPlanWritesNothingButTheLastEvaluatedDateAndSeenUpdatedAtAdvance() throws {
    var user = try DecisionHarness(zone: "America/Santiago")
    user.signUp()
    let before = try #require(user.state)
    user.write(at: user.local(day: 2, 10)) { _ in }   // the same values written again
    let evaluation = user.run(at: user.midnight(day: 3))
    #expect(evaluation.reasons == [.settingsChanged])
    #expect(evaluation.outcome == .unchanged)
    #expect(evaluation.history == nil && evaluation.notification == nil)
    #expect(evaluation.newState.currentPlan == before.currentPlan)
    #expect(evaluation.newState.lastEvaluatedDate == dayZero.adding(days: 3))
    #expect(evaluation.newState.seenUpdatedAt == user.local(day: 2, 10))
}

// MARK: - manual reruns

@Test func aManualRerunForAnUnknownUserIsReported() {
    let at = Instant(secondsSinceEpoch: 1_772_400_000)
    let manual = evaluate(row: nil, state: nil, at: at, manualRerun: true, zones: decisionZones)
    #expect(manual.outcome == .unknownUser && manual.history == nil)
    let scheduled = evaluate(row: nil, state: nil, at: at, manualRerun: false, zones: decisionZones)
    #expect(scheduled.outcome == .notDue && scheduled.nextScheduledCheck == nil)
}

@Test func aManualRerunJudgesARecordedVersionAgainAndRecordsItAgain() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.write(at: user.local(day: 0, 9)) { $0.gender = "robot" }
    #expect(user.run(at: user.local(day: 0, 9, 15)).rejections.count == 1)
    #expect(user.run(at: user.local(day: 0, 9, 30)).rejections.isEmpty)
    let manual = user.run(at: user.local(day: 0, 10), manual: true)
    #expect(manual.outcome == .rejected)
    #expect(manual.rejections == [FieldRejection(field: .gender, message: "Please select your gender")])
}

@Test func aManualRerunRecomputesFromTheLiveRowAtOnce() throws {
    var user = try DecisionHarness(zone: "Europe/Berlin")
    user.signUp()
    user.write(at: user.local(day: 2, 10)) { $0.currentWeightKg = "80.5" }
    let manual = user.run(at: user.local(day: 2, 11), manual: true)
    // The change is after day 2's midnight, so settings_changed does not hold; only manual_rerun.
    #expect(manual.reasons == [.manualRerun])
    #expect(manual.planDate == dayZero.adding(days: 2))
    #expect(manual.history?.snapshot.inputs.weightReportedTenthsKg == 805)
    #expect(manual.notification?.id == "1:2026-03-04:targets_updated:0")   // no earlier row for 03-04
    // The version is now seen: nothing more at the next midnight.
    #expect(user.run(at: user.midnight(day: 3)).reasons.isEmpty)
}

@Test func aManualRerunRecomputesTheLastEvaluatedDateWhenItIsLater() throws {
    var user = try DecisionHarness(zone: "Pacific/Kiritimati")
    user.signUp(atHour: 1)   // plan for 2026-03-02, written at 2026-03-01T11:15Z
    let moved = try #require(Instant(rfc3339: "2026-03-01T11:30:00Z"))
    user.write(at: moved) { $0.timezone = "Pacific/Pago_Pago" }
    // 2026-03-01T12:00Z is 2026-03-01 01:00 in Pago Pago: D = 03-01 < E = 03-02.
    let manual = user.run(at: moved.adding(seconds: 1800), manual: true)
    #expect(manual.planDate == dayZero)
    #expect(manual.history?.snapshot.inputs.timezone == "Pacific/Pago_Pago")
    #expect(manual.newState.lastEvaluatedDate == dayZero)
    #expect(manual.newState.historyRowsOnCurrentPlanDate == 2)
    // A zone change alone moves no target: a history row without a notification.
    #expect(manual.notification == nil)
}

// MARK: - nextScheduledCheck

@Test func withoutACycleTheNextCheckIsTheNextBirthday() throws {
    var user = try DecisionHarness(zone: "Asia/Kathmandu")
    user.write(at: user.local(day: 0, 9)) { $0.primaryGoal = "maintain_weight" }
    let created = user.run(at: user.local(day: 0, 9, 15))
    #expect(created.outcome == .created)
    // Born 1993-06-15: 33 on 2026-06-15, at Kathmandu's midnight (+05:45).
    #expect(created.nextScheduledCheck == user.zone.startOfDay(LocalDate(year: 2026, month: 6, day: 15)))
}

@Test func aPendingChangeBringsTheNextCheckToItsMidnight() throws {
    var user = try DecisionHarness(zone: "Australia/Lord_Howe")
    user.signUp()
    user.write(at: user.local(day: 5, 20)) { $0.allergies = ["peanuts"] }
    #expect(user.run(at: user.local(day: 5, 20, 15)).nextScheduledCheck == user.midnight(day: 6))
}
