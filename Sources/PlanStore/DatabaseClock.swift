import PlanRules
import Postgres

extension PlanStore {
    /// The database server's clock (`clock_timestamp()`): the one clock every run and
    /// every host share, against which a run's `--as-of` is checked before it writes. Read
    /// when the store was opened (in the round trip of its checks), else now.
    public func databaseNow() throws -> Instant {
        if let openedAt { return openedAt }
        return try Self.databaseNow(from: connection.pipelined([Self.clockQuery])[0])
    }

    static var clockQuery: (query: SQLQuery, purpose: String) {
        ("SELECT \(sql: microseconds("clock_timestamp()")) AS now", "reading the database's clock")
    }

    static func databaseNow(from result: PostgresResult) throws -> Instant {
        Instant(microsecondsSinceEpoch: try result.singleRow().int64("now"))
    }
}
