import Logging
import PlanJSON
import PlanRules
import PlanStore

/// What evaluating one batch produced.
struct BatchOutcome {
    var write = BatchWrite()
    var counts = RunCounts()
    var unknownUsers: [Int64] = []
    /// `--dry-run` lines: one JSON object per user that would be written to.
    var reportLines: [String] = []
    /// Users per due reason, by position in `DueReason.allCases`, folded into
    /// `counts.usersByReason` once per batch: counting into that dictionary hashed a
    /// string for every user.
    var usersByReason = [Int](repeating: 0, count: DueReason.allCases.count)
}

extension NightlyRunner {
    /// Loads and evaluates one batch of `selected`'s users; pure apart from the one read.
    func process(_ userIDs: [Int64], store: any BatchStore, after partitionGuard: PartitionGuard? = nil,
                 run: RunInProgress, selected: RunCandidates, logger: Logger) throws -> BatchOutcome {
        let (options, manual, rollout, lateCandidates) = (run.options, run.manual, selected.rollout, selected.lateUserIDs)
        var outcome = BatchOutcome(write: BatchWrite(reservingFor: userIDs.count))
        // Each user moved out of the batch (reversed once, then popped), so that it is a
        // local the calls below borrow: iterating copied each user out of the array, and
        // reading it in place (`users[i]` of a buffer pointer) still made the compiler copy
        // the row and state for `evaluate` and the whole user for `record`, every string
        // and array of its row, state and plan retained and released again each time.
        var users = try store.loadUsers(userIDs, after: partitionGuard)
        users.reverse()
        while let user = users.popLast() {
            // Neither a settings row nor a state: nothing to evaluate or remember (an id of
            // a first run's range that no user has, a user deleted since the selection).
            // Writing its state would leave a row for nobody; a manual rerun reports it.
            if !manual, user.row == nil, user.state == nil { continue }
            let evaluation = evaluate(row: user.row, state: user.state, at: options.asOf, manualRerun: manual,
                                      zones: zones, rollout: rollout)
            // Every candidate of the sweep has a row the watermark missed and the job has
            // not seen: found late, whether it is due now or waits for its midnight.
            let foundLate = !lateCandidates.isEmpty && user.row != nil && lateCandidates.contains(user.userID)
            if foundLate { outcome.counts.foundLate += 1 }
            record(evaluation, of: user, into: &outcome, options: options, manual: manual, foundLate: foundLate,
                   logger: logger)
        }
        for (reason, users) in zip(DueReason.allCases, outcome.usersByReason) where users > 0 {
            outcome.counts.usersByReason[reason.rawValue, default: 0] += users
        }
        return outcome
    }

    /// Whether `reason` makes a user due at a local midnight, which the lateness metric
    /// measures from. A first plan is due when its row appears, a new rules version when
    /// the binary is deployed, and a manual rerun when ops ask: none has a midnight.
    /// (A switch, not a `Set`: asked for every user.)
    static func isDueAtMidnight(_ reason: DueReason) -> Bool {
        switch reason {
        case .settingsChanged, .phaseSwitch, .birthday: true
        case .created, .rulesChanged, .manualRerun: false
        }
    }

    /// A history row's `previous`: the plan the user was loaded with (`evaluate`
    /// regenerates once, from that plan), written back as its stored text rather than
    /// encoded again; encoded only for a user loaded without that text.
    private func previousJSON(_ previous: Snapshot?, of user: LoadedUser) -> [UInt8]? {
        guard let previous else { return nil }
        assert(previous == user.state?.currentPlan, "a history row's previous is the loaded plan")
        return user.currentPlanJSON ?? previous.storageJSONBytes()
    }

    /// Adds what `evaluation` writes and counts to the batch. Both borrowed: the compiler
    /// then refuses any copy of the user or the evaluation made here.
    /// `foundLate`: the user's row was older than the watermark and the late-row sweep found it.
    private func record(_ evaluation: borrowing Evaluation, of user: borrowing LoadedUser,
                        into outcome: inout BatchOutcome, options: RunOptions, manual: Bool, foundLate: Bool,
                        logger: Logger) {
        /// The logger of lines about this user (made only for one: most users log nothing).
        func userLogger() -> Logger {
            var userLogger = logger
            userLogger[metadataKey: "user_id"] = "\(user.userID)"
            return userLogger
        }
        switch evaluation.outcome {
        case .unknownUser:
            outcome.unknownUsers.append(user.userID)
            return
        case .created: outcome.counts.created += 1
        case .changed: outcome.counts.changed += 1
        case .unchanged: outcome.counts.unchanged += 1
        case .notDue, .skippedIncomplete, .rejected: break
        case .leftToNewerRules:
            // Never backwards: nothing is written. Due users whose scheduled check has come
            // are counted by the run without being read (`dueUsersUnder`).
            if !evaluation.reasons.isEmpty, user.storedNextCheck.map({ $0 > options.asOf }) ?? true {
                outcome.counts.leftToNewerRules += 1
            }
            return
        }
        // A row version recorded as incomplete or rejected counts even when a scheduled
        // event regenerated the plan from the stored inputs in the same evaluation.
        if evaluation.recordedIncomplete { outcome.counts.skippedIncomplete += 1 }
        if !evaluation.rejections.isEmpty { outcome.counts.rejected += 1 }
        if !evaluation.reasons.isEmpty { outcome.counts.due += 1 }
        for reason in evaluation.reasons { outcome.usersByReason[reason.position] += 1 }
        // A late row is due because of its row, found when it became visible: the time
        // since its midnight says nothing of the schedule, so it is counted apart.
        let lateRowDue = foundLate && evaluation.reasons.contains { $0 == .created || $0 == .settingsChanged }
        if !manual, !lateRowDue, let midnight = evaluation.planDateStart,
           evaluation.reasons.contains(where: Self.isDueAtMidnight) {
            outcome.counts.lateness.record(
                microseconds: options.asOf.microsecondsSinceEpoch - midnight.microsecondsSinceEpoch)
        }

        if !evaluation.rejections.isEmpty {
            // Read only here: `user.row?.updatedAt` copied the whole row, strings and all.
            let rowUpdatedAt = user.row?.updatedAt
            for rejection in evaluation.rejections {
                outcome.counts.rejectionsByField[rejection.field.rawValue, default: 0] += 1
                outcome.write.rejections.append(RejectionWrite(
                    userID: user.userID, field: rejection.field.rawValue, message: rejection.message,
                    rowUpdatedAt: rowUpdatedAt))
            }
            userLogger().info("settings row rejected", metadata: [
                "fields": "\(evaluation.rejections.map(\.field.rawValue).joined(separator: ","))"])
        }
        if let history = evaluation.history {
            // JSON stays bytes on its way to COPY, in the batch's one buffer: no String to
            // build and validate, no array per value.
            let snapshotJSON = outcome.write.appendJSON(history.snapshot.appendStorageJSON(to:))
            let diff = outcome.write.appendJSON(history.diff.appendJSON(to:))
            outcome.write.history.append(HistoryWrite(
                userID: user.userID, planDate: history.planDate,
                seq: evaluation.newState.historyRowsOnCurrentPlanDate - 1, reasons: history.reasons,
                snapshotJSON: snapshotJSON, previousJSON: previousJSON(history.previous, of: user),
                diffJSON: diff, rulesVersion: history.snapshot.rulesVersion, phaseSwitch: history.phaseSwitch,
                notificationType: evaluation.notification?.type))
        }
        if let notification = evaluation.notification {
            if notification.unknownUnitSystem != nil {
                // Counts as NULL (plan-rules.md 7.1): units from the locale's region.
                outcome.counts.unknownUnitSystems += 1
                userLogger().warning("unit_system is neither metric nor imperial; units follow the locale",
                                   metadata: ["units": "\(notification.units ?? "metric")"])
            }
            outcome.counts.notifications += 1
            outcome.write.appendNotification(
                id: notification.id, userID: user.userID, createdAt: options.asOf,
                payload: notification.appendJSON(to:))
        }
        // A state a newer rules version wrote is left as it is unless a plan was written
        // (a rollback): its judgements and schedule are that version's (section 2.1).
        let stateOfNewerRules = user.storedRulesVersion.map { RulesVersionStanding(of: $0) == .newer } ?? false
        if stateOfNewerRules, evaluation.history == nil, evaluation.rejections.isEmpty, !evaluation.recordedIncomplete,
           evaluation.reasons.isEmpty {
            return
        }
        // A new history row always changes the state (its current plan): the states, plans
        // and all, are compared only without one.
        if evaluation.history != nil || evaluation.newState != user.state
            || evaluation.nextScheduledCheck != user.storedNextCheck || user.storedRulesVersion != rulesVersion {
            outcome.write.states.append(StateWrite(
                userID: user.userID, state: evaluation.newState, rulesVersion: rulesVersion,
                nextCheckAt: evaluation.nextScheduledCheck, isNew: user.state == nil))
        }
        if options.dryRun, evaluation.outcome != .notDue {
            outcome.reportLines.append(evaluation.dryRunJSON(userID: user.userID))
        }
    }
}
