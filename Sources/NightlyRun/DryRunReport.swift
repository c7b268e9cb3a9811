import PlanRules

/// The line `--dry-run` prints per user it would write to: the outcome, the reasons,
/// the diff and the notification, as one JSON object (`"dry_run": true` first so it is
/// never mistaken for a notification line).
enum DryRunReport {
    static func line(userID: Int64, evaluation: Evaluation, diffJSON: String?, notificationLine: String?) -> String {
        var out = #"{"dry_run":true,"user_id":"# + String(userID)
        out += #","plan_date":""# + evaluation.planDate.description + #"""#
        out += #","outcome":""# + "\(evaluation.outcome)" + #"""#
        out += #","reasons":["# + evaluation.reasons.map { #"""# + $0.rawValue + #"""# }.joined(separator: ",") + "]"
        out += #","diff":"# + (diffJSON ?? "null")
        out += #","notification":"# + (notificationLine ?? "null")
        out += #","rejections":["#
        out += evaluation.rejections.map {
            JSONValue.object([JSONMember(key: "field", value: .string($0.field.rawValue)),
                              JSONMember(key: "message", value: .string($0.message))]).jsonString
        }.joined(separator: ",")
        return out + "]}"
    }
}
