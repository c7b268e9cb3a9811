/// The decision the nightly run makes for one user at one instant (plan-rules.md
/// sections 1.1, 1.2 and 2). Pure: everything it needs comes in, everything to do goes
/// out in the `Evaluation`.
///
/// - Parameters:
///   - row: the live `user_settings` row; nil when the user has none.
///   - state: what the job remembers about the user; nil before the first evaluation.
///   - now: the run's instant (`--as-of` when given); also the notification's `created_at`.
///   - manualRerun: ops asked for this user (`--user`).
///   - rollout: the job's rules version's rollout start and the operator's actions
///     (section 2.1): a plan of an older version is made again from the user's first
///     midnight at or after the start; a plan of a newer version is left alone.
///
/// Readings of the spec this function makes (each from the spec's words):
/// - `settings_changed`, `phase_switch`, `birthday` and `rules_changed` need a current
///   plan; the first plan lists only `created` (examples.jsonl: a row written the day
///   before its first plan has reasons `["created"]`).
/// - A row version counts as seen (`seenUpdatedAt`) once it was used as effective inputs
///   or judged incomplete/invalid; a change still waiting for its midnight is not seen,
///   so a birthday or phase switch regenerated meanwhile does not swallow it.
/// - A manual rerun evaluates the other reasons at the plan date it recomputes
///   (max(D, E)), with the live row as the effective inputs. When the live row is
///   incomplete or invalid it is recorded again, and the user is then treated exactly
///   as a scheduled run would (reasons without `manual_rerun`).
/// - Without a `user_settings` row nothing happens on its own (the user is not in the
///   table the job reads); a manual rerun reports `unknownUser`.
public func evaluate(row: UserSettingsRow?, state: UserPlanState?, at now: Instant,
                     manualRerun: Bool, zones: ZoneDatabase, rollout: RulesRollout = RulesRollout()) -> Evaluation {
    let state = state ?? UserPlanState()
    guard let row, let zone = planDateZone(row: row, currentPlan: state.currentPlan, zones: zones) else {
        return Evaluation(planDate: LocalDate(wallSecondsSinceEpoch: now.secondsSinceEpoch), reasons: [],
                          outcome: manualRerun && row == nil ? .unknownUser : .notDue, history: nil,
                          notification: nil, rejections: [], recordedIncomplete: false, newState: state,
                          nextScheduledCheck: nil, planDateStart: nil)
    }
    var decision = UserDecision(updatedAt: row.updatedAt, state: state, now: now, zone: zone, zones: zones,
                                rollout: rollout)
    if manualRerun { decision.manualRerun(row) } else { decision.scheduledRun(row) }
    decision.rememberWaitingVersion()
    return decision.evaluation(row)
}

/// The working state of one `evaluate` call. The row is passed to the steps that read it
/// rather than kept: keeping it copied every string and array of it for every user.
private struct UserDecision {
    /// The row's `updated_at`: its version.
    let updatedAt: Instant?
    let now: Instant
    let zone: Zone
    let zones: ZoneDatabase
    let rollout: RulesRollout
    /// D: the user's plan date at `now`.
    let today: LocalDate
    var state: UserPlanState
    var planDate: LocalDate
    var reasons: [DueReason] = []
    var regenerated = false
    var history: HistoryEntry?
    var notification: PlanNotification?
    var rejections: [FieldRejection] = []
    var judgedUnusable = false
    var recordedIncomplete = false
    /// A newer rules version made the current plan: left to it (`reasons` say whether any
    /// reason held).
    var leftToNewerRules = false

    init(updatedAt: Instant?, state: UserPlanState, now: Instant, zone: Zone, zones: ZoneDatabase,
         rollout: RulesRollout) {
        self.updatedAt = updatedAt
        self.state = state
        self.now = now
        self.zone = zone
        self.zones = zones
        self.rollout = rollout
        self.today = zone.localDate(at: now)
        self.planDate = today
    }

    var version: RowVersion { RowVersion(updatedAt: updatedAt, state: state) }

    // MARK: Scheduled run

    /// Section 2's scheduled reasons at D; nothing for a date on or before E.
    mutating func scheduledRun(_ row: UserSettingsRow) {
        guard let current = state.currentPlan else {
            // created: the first plan at once, from a complete, valid row.
            guard !version.isRecordedAsUnusable, let live = judgeLiveRow(row, at: today) else { return }
            regenerate(row, from: live, planDate: today, reasons: [.created], usedLiveRow: true)
            return
        }
        let lastEvaluated = state.lastEvaluatedDate ?? current.planDate
        guard today > lastEvaluated else { return }

        // The live row becomes the effective inputs once its midnight has passed, if it is
        // complete and valid; a version already recorded as unusable is not judged again.
        let liveRowInEffect = version.isBefore(zone.startOfDay(today)) && !version.isRecordedAsUnusable
        let standing = RulesVersionStanding(of: current.rulesVersion)
        if standing == .newer, !rollout.atOnceForNewer {
            // Never backwards (section 2.1): nothing is judged or written. The reasons that
            // hold are kept, so that the run can count the due users it left.
            leftToNewerRules = true
            reasons = dueReasons(settingsChanged: liveRowInEffect && version.isUnseen, currentPlan: current,
                                 lastEvaluated: lastEvaluated, planDate: today,
                                 dateOfBirth: current.inputs.dateOfBirth, rulesChange: .none)
            return
        }
        let rulesChange = self.rulesChange(standing, lastEvaluated: lastEvaluated)
        var live: ValidSettings?
        var liveRowJudged = false
        if liveRowInEffect && version.isUnseen {
            live = judgeLiveRow(row, at: today)
            liveRowJudged = true
        }
        var due = dueReasons(settingsChanged: live != nil, currentPlan: current, lastEvaluated: lastEvaluated,
                             planDate: today, dateOfBirth: live?.dateOfBirth ?? current.inputs.dateOfBirth,
                             rulesChange: rulesChange)
        guard !due.isEmpty else { return }
        if liveRowInEffect && !liveRowJudged {
            // An already seen version, about to be used again: judged at this plan date.
            live = judgeLiveRow(row, at: today)
            if let live {
                due = dueReasons(settingsChanged: false, currentPlan: current, lastEvaluated: lastEvaluated,
                                 planDate: today, dateOfBirth: live.dateOfBirth, rulesChange: rulesChange)
            }
        }
        regenerate(row, from: live ?? current.inputs.settings, planDate: today, reasons: due,
                   usedLiveRow: live != nil)
    }

    // MARK: Manual rerun

    /// The plan for max(D, E), recomputed now from the live row, judged (and recorded)
    /// again even if this version was recorded before.
    mutating func manualRerun(_ row: UserSettingsRow) {
        let current = state.currentPlan
        let target = max(today, state.lastEvaluatedDate ?? today)
        guard let live = judgeLiveRow(row, at: target) else {
            scheduledRun(row)
            return
        }
        var due: [DueReason]
        if let current {
            let settingsChanged = version.isUnseen && version.isBefore(zone.startOfDay(target))
            // Ops asked: the job's version applies, whichever version made the plan.
            let rulesChange: RulesChange = RulesVersionStanding(of: current.rulesVersion) == .same ? .none : .due
            due = dueReasons(settingsChanged: settingsChanged, currentPlan: current,
                             lastEvaluated: state.lastEvaluatedDate ?? current.planDate, planDate: target,
                             dateOfBirth: live.dateOfBirth, rulesChange: rulesChange)
        } else {
            due = [.created]
        }
        due.append(.manualRerun)
        regenerate(row, from: live, planDate: target, reasons: due, usedLiveRow: true)
    }

    // MARK: Steps

    /// Whether `rules_changed` holds for D (section 2.1): a plan of an older version is
    /// made again from the first date after E whose midnight is at or after the rollout
    /// start; at once when an operator asked (for older plans, or newer ones).
    func rulesChange(_ standing: RulesVersionStanding, lastEvaluated: LocalDate) -> RulesChange {
        switch standing {
        case .same: return .none
        case .newer: return rollout.atOnceForNewer ? .due : .none
        case .older:
            guard let first = rollout.firstDate(after: lastEvaluated, in: zone) else { return .listed }
            return today >= first ? .due : .listed
        }
    }

    /// Judges the live row at `date`. An incomplete or invalid version is recorded (once
    /// per version and rules version; the caller decides whether it was recorded before)
    /// and counts as seen; nil then.
    mutating func judgeLiveRow(_ row: UserSettingsRow, at date: LocalDate) -> ValidSettings? {
        switch judge(row, planDate: date, zones: zones) {
        case .valid(let settings):
            return settings
        case .incomplete:
            recordedIncomplete = true
        case .rejected(let failures):
            rejections = failures
        }
        judgedUnusable = true
        state.judgedUpdatedAt = updatedAt
        state.judgedRulesVersion = rulesVersion
        markSeen()
        return nil
    }

    /// Computes the plan; writes a history row (with its notification) only if it changed.
    /// E always advances, and the seen `updated_at` when the live row was used.
    mutating func regenerate(_ row: UserSettingsRow, from settings: ValidSettings, planDate: LocalDate, reasons: [DueReason],
                             usedLiveRow: Bool) {
        let current = state.currentPlan
        let plan = computePlan(from: settings, planDate: planDate, reasons: reasons, currentPlan: current)
        self.planDate = planDate
        self.reasons = reasons
        regenerated = true
        state.lastEvaluatedDate = max(state.lastEvaluatedDate ?? planDate, planDate)
        if usedLiveRow { markSeen() }
        if let current, !planChanged(from: current, to: plan) { return }

        let earlierRows = current?.planDate == planDate ? state.historyRowsOnCurrentPlanDate : 0
        let entry = HistoryEntry(snapshot: plan, previous: current)
        notification = planNotification(for: entry, userID: row.userID, sequence: earlierRows, createdAt: now,
                                        zone: zones.zone(named: plan.inputs.timezone) ?? zone,
                                        presentation: NotificationPresentation(locale: row.locale,
                                                                               unitSystem: row.unitSystem))
        // Moved, not copied: a history entry holds two snapshots.
        history = consume entry
        state.currentPlan = plan
        state.historyRowsOnCurrentPlanDate = earlierRows + 1
    }

    mutating func markSeen() {
        guard let updatedAt else { return }
        if let seen = state.seenUpdatedAt, seen >= updatedAt { return }
        state.seenUpdatedAt = updatedAt
    }

    /// A version that stays unseen waits for its midnight, which the next scheduled check
    /// includes (or never takes effect, `infinity`): runs before that check need not read
    /// the user again (`scheduledUpdatedAt`).
    mutating func rememberWaitingVersion() {
        guard !leftToNewerRules else { return }
        state.scheduledUpdatedAt = version.isUnseen ? updatedAt : nil
    }

    /// The decision's result, its last step. Mutating: the state, history entry and
    /// notification are moved out of the decision rather than copied (a copy retained
    /// every string of the plans they hold).
    mutating func evaluation(_ row: UserSettingsRow) -> Evaluation {
        let outcome: Evaluation.Outcome
        if let history {
            outcome = history.previous == nil ? .created : .changed
        } else if regenerated {
            outcome = .unchanged
        } else if judgedUnusable {
            outcome = recordedIncomplete ? .skippedIncomplete : .rejected
        } else if leftToNewerRules {
            outcome = .leftToNewerRules
        } else {
            outcome = .notDue
        }
        let nextCheck = nextScheduledCheck(row: row, state: state, zone: zone, rollout: rollout)
        var newState = UserPlanState()
        swap(&newState, &state)
        return Evaluation(planDate: planDate, reasons: reasons, outcome: outcome, history: history.take(),
                          notification: notification.take(), rejections: rejections,
                          recordedIncomplete: recordedIncomplete, newState: newState, nextScheduledCheck: nextCheck,
                          planDateStart: regenerated ? zone.startOfDay(planDate) : nil)
    }
}
