import NightlyRun
import PlanRules
import PlanStore

/// What `plan-regen explain` shows about one user, read from the store (writes nothing):
/// the run that wrote the current plan, the plan's numbers formula by formula, and what
/// happens next — each worked out by the rules the run uses.
public struct ExplainReport: Sendable {
    public var userID: Int64
    /// `Written by run 7 at … (settings_changed)`; nil when no history row is left.
    public var writtenBy: String?
    /// The current plan derived formula by formula (`PlanExplanation`); nil before the first plan.
    public var explanation: String?
    public var outlook: PlanOutlook

    /// Nil when the user has neither a `user_settings` row nor a plan.
    /// - Parameter format: how numbers and dates are written (`explain --locale`).
    public static func gather(from store: PlanStore, userID: Int64, asOf: Instant, zones: ZoneDatabase,
                              format: ReadableFormat) throws -> ExplainReport? {
        guard let user = try store.loadUsers([userID]).first, user.row != nil || user.state != nil else { return nil }
        var latest: WrittenPlan?
        try store.forEachWrittenPlan(in: HistoryRange(userID: userID, limit: 1)) { latest = $0 }
        // Before the rollout of this binary's version starts, a run would start it now.
        let recordedStart = try store.rulesRollouts().first { $0.rulesVersion == rulesVersion }?.startedAt
        let rollout = RulesRollout(start: recordedStart ?? asOf)
        var outlook = PlanOutlook(row: user.row, state: user.state, asOf: asOf, zones: zones, format: format,
                                  rollout: rollout)
        if let late = try lateRowNote(store: store, user: user) { outlook.lines.insert(late, at: 0) }
        return ExplainReport(
            userID: userID,
            writtenBy: latest.map {
                "Written by run \($0.runID) at \($0.generatedAt.rfc3339) (\($0.snapshot.reasons.map(\.rawValue).joined(separator: ", ")))"
            },
            explanation: user.state?.currentPlan.map { PlanExplanation(snapshot: $0, format: format).render() },
            outlook: outlook)
    }

    /// How a run finds the user's row when no run has seen it and it is older than the
    /// change watermark's look-back (plan-rules.md section 2, "Late rows"): by the
    /// late-row sweep, by the instant `LateRowSweep.reaches` gives. Nil for any other row.
    static func lateRowNote(store: PlanStore, user: LoadedUser) throws -> String? {
        guard let row = user.row, let updatedAt = row.updatedAt, updatedAt != .distantFuture else { return nil }
        let state = user.state ?? UserPlanState()
        guard RowVersion(updatedAt: updatedAt, state: state).isUnseen, state.scheduledUpdatedAt != updatedAt else {
            return nil
        }
        let partition = UserPartitions.partition(of: user.userID)
        let start = try store.selectionStart(of: [partition])
        let lookback = RunOptions.defaults.changeLookbackSeconds
        guard let watermark = start.oldestWatermark, updatedAt < watermark.adding(seconds: -lookback),
              let ids = start.userIDs else { return nil }
        let finding = LateRowSweep.reaches(user.userID, from: start.sweepPositions[partition], ids: ids)
            .map { "the late-row sweep reaches it by \($0.rfc3339) (the first scheduled run at or after that instant reads it)" }
            ?? "the next scheduled run compares every row of its partition (the late-row sweep) and reads it"
        return "Its row (written \(updatedAt.rfc3339)) is older than the change watermark (\(watermark.rfc3339)) "
            + "less the default look-back of \(lookback / 60) min, and no run has seen it: \(finding)."
    }
}
