import PlanRules
import Postgres

extension PlanStore {
    /// The database server's clock (`clock_timestamp()`): the one clock every run and
    /// every host share, against which a run's `--as-of` is checked before it writes. Read
    /// when the store was opened (in the round trip of its checks), else now.
    public func databaseNow() throws -> Instant {
        if let openedAt { return openedAt }
        let row = try connection.query(
            "SELECT \(sql: microseconds("clock_timestamp()")) AS now", purpose: "reading the database's clock").singleRow()
        return Instant(microsecondsSinceEpoch: try row.int64("now"))
    }
}
