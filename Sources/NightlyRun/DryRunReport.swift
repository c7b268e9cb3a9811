import PlanJSON
import PlanRules

/// The line `--dry-run` prints per user it would write to: the outcome, the reasons,
/// the diff and the notification, as one JSON object (`"dry_run": true` first so it is
/// never mistaken for a notification line).
enum DryRunReport {
    static func line(userID: Int64, evaluation: Evaluation, diffJSON: String?, notificationLine: String?) -> String {
        let reasons = evaluation.reasons.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let rejections = evaluation.rejections.map { rejection -> String in
            let object = JSONValue.object([
                JSONMember(key: "field", value: .string(rejection.field.rawValue)),
                JSONMember(key: "message", value: .string(rejection.message)),
            ])
            return object.jsonString
        }.joined(separator: ",")
        var out = "{\"dry_run\":true,\"user_id\":\(userID)"
        out += ",\"plan_date\":\"\(evaluation.planDate)\""
        out += ",\"outcome\":\"\(evaluation.outcome.rawValue)\""
        out += ",\"reasons\":[\(reasons)]"
        out += ",\"diff\":\(diffJSON ?? "null")"
        out += ",\"notification\":\(notificationLine ?? "null")"
        out += ",\"rejections\":[\(rejections)]}"
        return out
    }
}
