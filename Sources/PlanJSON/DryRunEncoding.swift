import PlanRules

extension Evaluation {
    /// The line `plan-regen run --dry-run` prints for a user it would write to: the outcome,
    /// the reasons, the diff, the notification line and the rejections, as one JSON object
    /// (`"dry_run":true` first, so it is never mistaken for a notification line).
    public func dryRunJSON(userID: Int64) -> String {
        var writer = JSONWriter(capacity: 1024)
        writer.raw("{\"dry_run\":true,\"user_id\":"); writer.int(Int(userID))
        writer.raw(",\"plan_date\":"); writer.date(planDate)
        writer.raw(",\"outcome\":"); writer.string(outcome.rawValue)
        writer.raw(",\"reasons\":"); writer.strings(reasons.lazy.map(\.rawValue))
        writer.raw(",\"diff\":"); writer.optional(history?.diff) { $1.write(into: &$0) }
        writer.raw(",\"notification\":"); writer.optional(notification) { $1.write(into: &$0) }
        writer.raw(",\"rejections\":[")
        for (index, rejection) in rejections.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"field\":"); writer.string(rejection.field.rawValue)
            writer.raw(",\"message\":"); writer.string(rejection.message)
            writer.raw("}")
        }
        writer.raw("]}")
        var bytes: [UInt8] = []
        writer.appendWritten(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
