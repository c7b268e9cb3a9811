import PlanRules
import Postgres

/// plan_history has one partition per month of plan_date (sql/0006). Before a batch
/// writes rows for a month, the store makes sure its partition exists; the SQL function
/// it calls runs as the table's owner, because the job's role has no DDL rights.
extension PlanStore {
    /// The months (year × 12 + month) of the existing partitions, named as
    /// `plan_history_partition_for` names them (`plan_history_YYYY_MM`).
    static var historyPartitionsQuery: (query: SQLQuery, purpose: String) {
        ("""
         SELECT substring(c.relname from '^plan_history_(\\d{4})_\\d{2}$')::int * 12
                + substring(c.relname from '^plan_history_\\d{4}_(\\d{2})$')::int AS month
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = to_regclass('plan_history') AND c.relname ~ '^plan_history_\\d{4}_\\d{2}$'
         """, "listing the plan_history partitions")
    }

    /// The months of `dates` whose partition this store has not made sure of yet, as the
    /// first day of each month.
    public func missingHistoryPartitions(for dates: [LocalDate]) -> [LocalDate] {
        var missing: [Int: LocalDate] = [:]
        for date in dates {
            let (year, month, _) = date.components
            let key = year * 12 + month
            if !historyPartitionMonths.contains(key), missing[key] == nil {
                missing[key] = LocalDate(year: year, month: month, day: 1)
            }
        }
        return missing.keys.sorted().map { missing[$0]! }
    }

    /// Creates the partitions of the months of `dates` that this store has not seen yet.
    /// Outside any batch transaction: creating a partition locks plan_history, which must
    /// not wait for (or block) the writes of batches in flight.
    public func ensureHistoryPartitions(for dates: [LocalDate]) throws {
        for month in missingHistoryPartitions(for: dates) {
            let (year, monthNumber, _) = month.components
            try connection.execute(
                "SELECT plan_history_partition_for(\(month)::date)",
                purpose: "creating the plan_history partition of \(year)-\(monthNumber)")
            historyPartitionMonths.insert(year * 12 + monthNumber)
        }
    }
}
