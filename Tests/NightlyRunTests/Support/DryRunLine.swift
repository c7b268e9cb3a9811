import Foundation
import Testing

/// One line `--dry-run` prints, read with Foundation's JSON parser: the fields the tests
/// check, so a line that is not the documented object fails to parse.
struct DryRunLine {
    var userID: Int64
    var outcome: String
    var reasons: [String]
    var diffPaths: [String]
    var notificationType: String?
    var rejectedFields: [String]

    static func parse(_ line: String) throws -> DryRunLine {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["dry_run"] as? Bool == true)
        let diff = object["diff"] as? [[String: Any]] ?? []
        let notification = object["notification"] as? [String: Any]
        let rejections = try #require(object["rejections"] as? [[String: Any]])
        return DryRunLine(
            userID: try #require((object["user_id"] as? NSNumber)?.int64Value),
            outcome: try #require(object["outcome"] as? String),
            reasons: try #require(object["reasons"] as? [String]),
            diffPaths: diff.compactMap { $0["path"] as? String },
            notificationType: notification?["type"] as? String,
            rejectedFields: rejections.compactMap { $0["field"] as? String })
    }
}
