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

/// SQL that turns whole microseconds since the epoch (an `int8` expression, as `Instant`
/// holds them) into a `timestamptz`, the sentinels into PostgreSQL's infinities: the
/// inverse of `microseconds(_:)`, exact (seconds and microseconds apart, so no value
/// passes through a float's 53 bits), and whatever the session's time zone.
func timestamptz(microseconds column: SQLQuery) -> SQLQuery {
    """
    CASE WHEN \(sql: column) = 9223372036854775807 THEN 'infinity'::timestamptz \
    WHEN \(sql: column) = -9223372036854775808 THEN '-infinity'::timestamptz \
    ELSE timestamptz 'epoch' + (\(sql: column) / 1000000) * interval '1 second' \
    + (\(sql: column) % 1000000) * interval '1 microsecond' END
    """
}

/// SQL that turns a number of days since 1970-01-01 (an `int` expression, as `LocalDate`
/// holds them) into a `date`.
func date(days column: SQLQuery) -> SQLQuery {
    "date '1970-01-01' + \(sql: column)"
}
