import PlanRules

extension Snapshot {
    /// The line `plan-regen history --format json` prints for a written plan: its row, its
    /// timeline wording (`event`, `details`), and the snapshot and diff as PostgreSQL
    /// prints them (`plan_history`'s jsonb text), copied as they are.
    public func historyJSONLine(userID: Int64, seq: Int, generatedAt: Instant, runID: Int64, event: String,
                                details: String, storedSnapshotJSON: String, storedDiffJSON: String) -> String {
        var writer = JSONWriter(capacity: 512 + storedSnapshotJSON.utf8.count + storedDiffJSON.utf8.count)
        writer.raw("{\"user_id\":"); writer.int(Int(userID))
        writer.raw(",\"plan_date\":"); writer.date(planDate)
        writer.raw(",\"seq\":"); writer.int(seq)
        writer.raw(",\"generated_at\":"); writer.instant(generatedAt)
        writer.raw(",\"run_id\":"); writer.int(Int(runID))
        writer.raw(",\"reasons\":"); writer.strings(reasons.lazy.map(\.rawValue))
        writer.raw(",\"event\":"); writer.string(event)
        writer.raw(",\"details\":"); writer.string(details)
        writer.raw(",\"snapshot\":"); writer.append(storedSnapshotJSON)
        writer.raw(",\"diff\":"); writer.append(storedDiffJSON)
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
