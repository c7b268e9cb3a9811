import PlanRules
import Postgres

/// How plan values travel as PostgreSQL text parameters and COPY fields.
extension Instant: PostgresParameter {
    /// `timestamptz` input text; the sentinels stand for PostgreSQL's infinities.
    public var postgresText: String {
        switch self {
        case .distantPast: return "-infinity"
        case .distantFuture: return "infinity"
        default: return rfc3339
        }
    }
}

extension LocalDate: PostgresParameter {
    /// `date` input text, `YYYY-MM-DD`.
    public var postgresText: String { description }
}

/// SQL that turns a `timestamptz` column into whole microseconds since the epoch
/// (`int8`), keeping the infinities as the `Instant` sentinels: exact, and no parsing of
/// DateStyle-dependent text. `column` is always a literal column name from this file.
func microseconds(_ column: String) -> String {
    """
    CASE WHEN \(column) IS NULL THEN NULL \
    WHEN \(column) = 'infinity' THEN 9223372036854775807 \
    WHEN \(column) = '-infinity' THEN -9223372036854775808 \
    ELSE (extract(epoch FROM \(column)) * 1000000)::int8 END
    """
}
