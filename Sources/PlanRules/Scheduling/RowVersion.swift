/// How one version of a user's `user_settings` row (identified by its `updated_at`, to
/// the microsecond) stands against what the job remembers (plan-rules.md sections 1.2
/// and 2).
public struct RowVersion {
    /// The row's `updated_at`; nil (NULL) is older than any instant.
    public let updatedAt: Instant?
    /// The fields of the user's state it is compared with, not the state itself: the
    /// version is made several times per user, and a copy of the state (its current plan
    /// and all) cost a retain and release of each of its strings every time.
    private let seenUpdatedAt: Instant?
    private let judgedUpdatedAt: Instant?
    private let judgedRulesVersion: String?

    public init(updatedAt: Instant?, state: UserPlanState) {
        self.updatedAt = updatedAt
        seenUpdatedAt = state.seenUpdatedAt
        judgedUpdatedAt = state.judgedUpdatedAt
        judgedRulesVersion = state.judgedRulesVersion
    }

    /// Later than the last `updated_at` the job saw (the first half of `settings_changed`).
    public var isUnseen: Bool {
        guard let updatedAt else { return false }
        guard let seen = seenUpdatedAt else { return true }
        return updatedAt > seen
    }

    /// This version was already judged incomplete or invalid under the job's rules or
    /// newer ones: it is recorded once and not retried until the row changes or a newer
    /// rules version runs (a newer version's judgement is never redone, section 2.1).
    public var isRecordedAsUnusable: Bool {
        guard judgedUpdatedAt == updatedAt, let judgedRulesVersion else { return false }
        return RulesVersionStanding(of: judgedRulesVersion) != .older
    }

    /// Written before `midnight` (settings take effect at the first local midnight after
    /// `updated_at`). A NULL `updated_at` always is.
    func isBefore(_ midnight: Instant) -> Bool {
        guard let updatedAt else { return true }
        return updatedAt < midnight
    }

    /// The first date whose local midnight comes after `updated_at`, i.e. the first plan
    /// date this version can take effect on, in `zone`. nil for `infinity` (never) or a
    /// NULL `updated_at` (already in effect: any date).
    func firstEffectiveDate(in zone: Zone, notBefore earliest: LocalDate) -> LocalDate? {
        guard let updatedAt else { return nil }
        if updatedAt == .distantFuture { return nil }
        if updatedAt < zone.startOfDay(earliest) { return earliest }
        var date = zone.localDate(at: updatedAt).adding(days: 1)
        // Where a fall-back just after midnight repeats the previous date, the next
        // date's midnight can still be at or before `updated_at`.
        while zone.startOfDay(date) <= updatedAt { date = date.adding(days: 1) }
        return max(date, earliest)
    }
}
