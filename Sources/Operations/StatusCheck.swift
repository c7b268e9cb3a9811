extension StatusReport {
    /// What makes the job unhealthy, for `status --check`; empty when it is healthy:
    /// - the latest finished run of a scope (all users, or one shard; `--user` reruns
    ///   aside) failed, was abandoned or found partitions held too long;
    /// - users are overdue, by the one definition status and the metrics share
    ///   (`users.overdue`: due for more than `MetricsReport.overdueAfterSeconds`).
    /// Only the listed runs (`--runs`) are looked at.
    public var problems: [String] {
        var problems: [String] = []
        var scopesSeen: Set<String> = []
        for run in runs where run.requestedUsers == nil && run.status != "running" {
            let scope = run.shard.map { "shard \($0)" } ?? "all users"
            guard scopesSeen.insert(scope).inserted else { continue }
            if ["failed", "abandoned", "held_too_long", "delivery_pending"].contains(run.status) {
                problems.append("the latest run of \(scope), run \(run.runID), \(run.status)"
                    + (run.error.map { ": \($0)" } ?? ""))
            }
        }
        if users.overdue > 0 {
            problems.append("\(users.overdue) users overdue (due for more than \(Self.duration(users.overdueAfterSeconds)))")
        }
        return problems
    }
}
