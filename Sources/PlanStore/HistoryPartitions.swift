import PlanRules
import Postgres

/// plan_history has one partition per month of plan_date (sql/0006). Before a batch
/// writes rows for a month, the store makes sure its partition exists; the SQL function
/// it calls runs as the table's owner, because the job's role has no DDL rights.
extension PlanStore {
    /// Creates the partitions of the months of `dates` that this session has not seen yet.
    /// Runs outside the batch's transaction: creating a partition locks plan_history
    /// briefly, which must not wait for (or block) the batch's own writes.
    public func ensureHistoryPartitions(for dates: [LocalDate]) throws {
        for date in dates {
            let (year, month, _) = date.components
            let key = year * 12 + month
            guard !historyPartitionMonths.contains(key) else { continue }
            try connection.execute(
                "SELECT plan_history_partition_for($1::date)", [LocalDate(year: year, month: month, day: 1)],
                purpose: "creating the plan_history partition of \(year)-\(month)")
            historyPartitionMonths.insert(key)
        }
    }
}
