import PlanRules

/// A failure that ends a run, said so that ops know what to do.
public enum RunError: Error, CustomStringConvertible, Sendable {
    case notificationFile(path: String, reason: String)
    case notificationWrite(destination: String, reason: String)
    case timeZoneDatabase(reason: String)
    /// The database failed while delivering (marking a batch delivered, claiming one).
    case delivery(reason: String)
    /// The run's instant is further ahead of the database's clock than a writing run
    /// allows (`RunOptions.asOfLeadLimit`); nothing was written.
    case asOfAhead(asOf: Instant, databaseNow: Instant, limitSeconds: Int64)

    /// True for a run refused because of how it was asked for (exit 64): fix the command line.
    public var isUsageError: Bool {
        if case .asOfAhead = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notificationFile(let path, let reason):
            return "cannot open notifications file \(path): \(reason)"
        case .notificationWrite(let destination, let reason):
            return "cannot write notifications to \(destination): \(reason); "
                + "they stay in the outbox and the next run emits them"
        case .delivery(let reason):
            return "delivering notifications failed: \(reason); the lines not marked delivered stay pending "
                + "and the next run or plan-regen deliver sends them (receivers de-duplicate by id)"
        case .timeZoneDatabase(let reason):
            return "cannot read the system time zone database: \(reason); install the tzdata package"
        case .asOfAhead(let asOf, let databaseNow, let limitSeconds):
            let lead = Self.duration(seconds: (asOf.microsecondsSinceEpoch - databaseNow.microsecondsSinceEpoch) / 1_000_000)
            return "refusing to write: the run's instant \(asOf.rfc3339) (--as-of, or this host's clock) is \(lead) "
                + "ahead of the database's clock (\(databaseNow.rfc3339)), more than \(Self.duration(seconds: limitSeconds)); "
                + "a run dated ahead writes plans for dates still to come and marks its users evaluated up to then, "
                + "so the scheduled runs would skip them until the calendar catches up. Nothing was written. "
                + "Look ahead with --dry-run, pass --allow-future on a test, demo or benchmark database, "
                + "or, without --as-of, fix this host's clock (NTP)"
        }
    }
}

extension RunError {
    /// `90 s`, `12 min`, `5 h`, `3 days`: a lead a person reads at a glance.
    static func duration(seconds: Int64) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86_400) days"
        }
    }
}
