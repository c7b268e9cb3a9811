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

/// Dates and timestamps go into COPY rows and array parameters in place (`row.plain`,
/// `PostgresPlainArray`): a batch writes tens of thousands of them.
extension LocalDate: PostgresPlainText {
    public var postgresTextCount: Int { hasFourDigitYear ? 10 : description.utf8.count }

    public func putPostgresText(into text: UnsafeMutableBufferPointer<UInt8>) {
        if hasFourDigitYear {
            putISO(into: text, at: 0)
        } else {
            UnsafeMutableRawBufferPointer(text).copyBytes(from: description.utf8)
        }
    }
}

extension Instant: PostgresPlainText {
    public var postgresTextCount: Int { hasFourDigitYear ? 27 : postgresText.utf8.count }

    public func putPostgresText(into text: UnsafeMutableBufferPointer<UInt8>) {
        if !putRFC3339(into: text, at: 0) {
            UnsafeMutableRawBufferPointer(text).copyBytes(from: postgresText.utf8)
        }
    }
}

/// SQL that turns a `timestamptz` expression into whole microseconds since the epoch
/// (`int8`), keeping the infinities as the `Instant` sentinels: exact, and no parsing of
/// DateStyle-dependent text.
func microseconds(_ column: SQLQuery) -> SQLQuery {
    """
    CASE WHEN \(sql: column) IS NULL THEN NULL \
    WHEN \(sql: column) = 'infinity' THEN 9223372036854775807 \
    WHEN \(sql: column) = '-infinity' THEN -9223372036854775808 \
    ELSE (extract(epoch FROM \(sql: column)) * 1000000)::int8 END
    """
}
