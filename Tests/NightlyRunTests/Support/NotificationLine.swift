import Foundation
import Testing

/// One notification as a consumer reads it from the JSON-lines stream (plan-rules.md
/// section 7), decoded with Foundation, independently of the job's own encoder. Decoding
/// fails on a line that is not one JSON object with these fields.
struct NotificationLine: Decodable, Equatable {
    var id: String
    var type: String
    var userID: Int64
    var planDate: String
    var timezone: String
    var createdAt: String
    var deliverAfter: String
    var schemaVersion: Int
    /// The line exactly as read.
    var raw = ""

    enum CodingKeys: String, CodingKey {
        case id, type, timezone
        case userID = "user_id"
        case planDate = "plan_date"
        case createdAt = "created_at"
        case deliverAfter = "deliver_after"
        case schemaVersion = "schema_version"
    }

    static func parse(_ line: String) throws -> NotificationLine {
        var parsed = try JSONDecoder().decode(NotificationLine.self, from: Data(line.utf8))
        parsed.raw = line
        return parsed
    }

    /// Every line of a JSON-lines file (none when the file does not exist).
    static func lines(of path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"), "\(path) ends in the middle of a line")
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    static func parseLines(of path: String) throws -> [NotificationLine] {
        try lines(of: path).map(parse)
    }
}
