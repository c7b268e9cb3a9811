#if PLAN_REGEN_FAULT_INJECTION
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#endif

/// The version of the product's rule book this code implements (docs/plan-rules.md
/// describes what it computes). Every snapshot carries it; a plan made by an older version
/// is made again from the user's first local midnight after the version's rollout start
/// (section 2.1).
public let rulesVersion: String = {
    #if PLAN_REGEN_FAULT_INJECTION
    // TEST-ONLY, debug builds only: a test runs two versions side by side.
    if let override = getenv("PLAN_REGEN_RULES_VERSION") { return String(cString: override) }
    #endif
    return "2026.1"
}()

/// How a stored rules version stands against the job's (plan-rules.md section 2.1).
public enum RulesVersionStanding: Sendable, Equatable {
    case older, same, newer

    /// `version` against `reference` (the job's): versions are `YEAR.N`, two non-negative
    /// integers ordered as numbers (`2026.10` is newer than `2026.9`); a version not of
    /// that form is older than any valid one.
    public init(of version: String, against reference: String = rulesVersion) {
        // Asked for every user: nearly always the same text, settled without parsing.
        if version == reference {
            self = .same
            return
        }
        switch (RulesVersionNumber(version), RulesVersionNumber(reference)) {
        case let (version?, reference?):
            self = version < reference ? .older : version == reference ? .same : .newer
        case (nil, _?): self = .older
        case (_?, nil): self = .newer
        case (nil, nil): self = version == reference ? .same : .older
        }
    }
}

/// A well-formed rules version, `YEAR.N`, compared as two numbers of any length.
struct RulesVersionNumber: Comparable {
    /// Each part without leading zeros ("0" for zero), so that numbers compare by length first.
    let year: Substring
    let number: Substring

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= "0" && $0 <= "9" } }) else {
            return nil
        }
        year = Self.withoutLeadingZeros(parts[0])
        number = Self.withoutLeadingZeros(parts[1])
    }

    private static func withoutLeadingZeros(_ digits: Substring) -> Substring {
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : trimmed
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        func less(_ a: Substring, _ b: Substring) -> Bool { a.count != b.count ? a.count < b.count : a < b }
        return lhs.year != rhs.year ? less(lhs.year, rhs.year) : less(lhs.number, rhs.number)
    }
}

/// What a run knows of its rules version's rollout (plan-rules.md section 2.1).
public struct RulesRollout: Hashable, Sendable {
    /// When the job's version started to roll out (`--as-of` of the first scheduled run
    /// that found an older plan, recorded once in the database); nil before.
    public var start: Instant?
    /// An operator made the job's version apply at once to users whose plan an older
    /// version made (an urgent correction).
    public var atOnceForOlder: Bool
    /// ... or a newer version made (a rollback).
    public var atOnceForNewer: Bool

    public init(start: Instant? = nil, atOnceForOlder: Bool = false, atOnceForNewer: Bool = false) {
        self.start = start
        self.atOnceForOlder = atOnceForOlder
        self.atOnceForNewer = atOnceForNewer
    }

    /// Every user whose plan another version made is due at once (both actions).
    public static let atOnce = RulesRollout(atOnceForOlder: true, atOnceForNewer: true)

    /// The first local midnight at which a plan of an older version is made again: the
    /// first date after `lastEvaluated` whose midnight is at or after the rollout start;
    /// nil before the rollout starts.
    public func firstDate(after lastEvaluated: LocalDate, in zone: Zone) -> LocalDate? {
        if atOnceForOlder { return lastEvaluated.adding(days: 1) }
        guard let start else { return nil }
        var date = max(zone.localDate(at: start), lastEvaluated.adding(days: 1))
        while zone.startOfDay(date) < start { date = date.adding(days: 1) }
        return date
    }
}

/// What the job's rules version would write for a user were its rollout to start at
/// `rolloutStart` (plan-rules.md section 2.1), as the runs would: the run at that instant
/// plans the user at once when another reason is due (a catch-up, with `rules_changed`
/// listed); otherwise the run at the midnight the rollout reaches them does. The run's own
/// `evaluate` both times. Returns the instant of the run that writes and its evaluation;
/// nil without a settings row or a current plan. For `plan-regen preview`.
public func evaluateAtRolloutMidnight(row: UserSettingsRow?, state: UserPlanState?, rolloutStart: Instant,
                                      zones: ZoneDatabase) -> (at: Instant, evaluation: Evaluation)? {
    guard let row, let state, let current = state.currentPlan,
          let zone = planDateZone(row: row, currentPlan: current, zones: zones) else { return nil }
    let rollout = RulesRollout(start: rolloutStart)
    let atStart = evaluate(row: row, state: state, at: rolloutStart, manualRerun: false, zones: zones, rollout: rollout)
    if atStart.history != nil { return (rolloutStart, atStart) }
    let after = atStart.newState
    let lastEvaluated = after.lastEvaluatedDate ?? current.planDate
    guard let date = rollout.firstDate(after: lastEvaluated, in: zone) else { return nil }
    let midnight = zone.startOfDay(date)
    return (midnight, evaluate(row: row, state: after, at: midnight, manualRerun: false, zones: zones,
                               rollout: rollout))
}
