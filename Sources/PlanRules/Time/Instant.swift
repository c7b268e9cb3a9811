/// A point on the UTC time line, in whole microseconds since 1970-01-01T00:00:00Z.
///
/// Microseconds because that is PostgreSQL's `timestamptz` resolution: the job must
/// remember the `updated_at` it read to the microsecond (plan-rules.md section 2,
/// "Concurrency"), and a `Double` of seconds cannot hold that exactly for today's dates.
public struct Instant: Hashable, Comparable, Sendable {
    public var microsecondsSinceEpoch: Int64

    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    public init(secondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = secondsSinceEpoch * 1_000_000
    }

    /// Whole seconds, rounded toward negative infinity.
    public var secondsSinceEpoch: Int64 {
        let (q, r) = microsecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000)
        return r < 0 ? q - 1 : q
    }

    public func adding(seconds: Int64) -> Instant {
        Instant(microsecondsSinceEpoch: microsecondsSinceEpoch + seconds * 1_000_000)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }
}

extension Instant {
    /// Stands for PostgreSQL's `-infinity` / `infinity` timestamps.
    public static let distantPast = Instant(microsecondsSinceEpoch: .min)
    public static let distantFuture = Instant(microsecondsSinceEpoch: .max)
}
