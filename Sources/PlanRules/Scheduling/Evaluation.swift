/// What the nightly run decides for one user at one instant (plan-rules.md sections 1.1,
/// 1.2 and 2), as plain data the store and the run carry out: write `history` and
/// `notification` together, record `rejections`, remember `newState`, and look at the
/// user again at `nextScheduledCheck` (or when the row is written).
public struct Evaluation: Hashable, Sendable {
    /// D, the user's plan date at the instant (or E for a manual rerun when E is later).
    public var planDate: LocalDate
    /// Every reason of section 2 that holds, in its order; empty when the user is not
    /// regenerated (a rejected or incomplete row version may still be recorded).
    public var reasons: [DueReason]
    public var outcome: Outcome
    /// The history row to write, when the plan changed (or is the first).
    public var history: HistoryEntry?
    /// At most one per history row (section 7); nil without a history row.
    public var notification: PlanNotification?
    /// One per failing field, to record for this row version (once per version and rules
    /// version; a manual rerun records again).
    public var rejections: [FieldRejection]
    /// True when this evaluation judged the live row version incomplete (section 1.1):
    /// counted as `skipped_incomplete`, written to no rejection table.
    public var recordedIncomplete: Bool
    /// What the job remembers afterwards. Always store it: E and the seen `updated_at`
    /// advance even when no plan is written.
    public var newState: UserPlanState
    /// The earliest instant at which `evaluate` could find a reason without a new write to
    /// the row (see `nextScheduledCheck(row:state:zone:)`); nil when nothing can happen on
    /// its own.
    public var nextScheduledCheck: Instant?
    /// The local midnight (in the plan-date zone) that began `planDate`, when the user was
    /// regenerated; nil otherwise. The run measures how late a plan due at that midnight
    /// was written (the lateness metric).
    public var planDateStart: Instant?

    /// How a user's evaluation ended, for the run's counters. When a plan was computed
    /// the outcome says so (`created`, `changed`, `unchanged`) even if the live row was
    /// also rejected in the same evaluation (a scheduled event regenerated the plan from
    /// the current plan's inputs); `rejections` / `recordedIncomplete` say that part.
    public enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// No reason holds and nothing was judged.
        case notDue = "not_due"
        case created
        /// A history row is written.
        case changed
        /// Regenerated, but the plan did not change (section 2): no history row.
        case unchanged
        /// Only recorded the live row version as incomplete (section 1.1).
        case skippedIncomplete = "skipped_incomplete"
        /// Only recorded the live row version as rejected (section 1.2).
        case rejected
        /// A manual rerun for a user id with no `user_settings` row.
        case unknownUser = "unknown_user"
        /// A newer rules version made the current plan: a scheduled run leaves the user
        /// (section 2.1), writing nothing; `reasons` are those that held (a due user left).
        case leftToNewerRules = "left_to_newer_rules"
    }
}

/// One history row: the new snapshot, the current plan it replaces, and the diff.
public struct HistoryEntry: Hashable, Sendable {
    public var snapshot: Snapshot
    /// The current plan before this one; nil for the first plan.
    public var previous: Snapshot?
    /// `planDiff(from: previous, to: snapshot)`; empty for the first plan.
    public var diff: [FieldChange]

    public init(snapshot: Snapshot, previous: Snapshot?) {
        self.snapshot = snapshot
        self.previous = previous
        self.diff = planDiff(from: previous, to: snapshot)
    }

    /// The MATADOR phase this plan switched to (section 7's phase switch), nil when it did
    /// not: what decides a `phase_switch` notification and what the history records.
    public var phaseSwitch: Phase? { diff.phaseSwitch }

    public var reasons: [DueReason] { snapshot.reasons }
    public var planDate: LocalDate { snapshot.planDate }
}
