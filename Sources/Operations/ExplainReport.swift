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
        var latest: HistoryRecord?
        try store.forEachHistoryRecord(in: HistoryRange(userID: userID, limit: 1)) { latest = $0 }
        return ExplainReport(
            userID: userID,
            writtenBy: latest.map {
                "Written by run \($0.runID) at \($0.generatedAt.rfc3339) (\($0.reasons.joined(separator: ", ")))"
            },
            explanation: user.state?.currentPlan.map { PlanExplanation(snapshot: $0, format: format).render() },
            outlook: PlanOutlook(row: user.row, state: user.state, asOf: asOf, zones: zones, format: format))
    }
}
