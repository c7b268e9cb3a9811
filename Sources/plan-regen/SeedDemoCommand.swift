import ArgumentParser
import Foundation
import Operations
import PlanRules
import PlanStore

struct SeedDemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo",
        abstract: "Fills user_settings with varied demo users (never on production).",
        discussion: """
            Examples:
              plan-regen seed-demo --users 300
              plan-regen seed-demo --users 100000 --first-user-id 1000001
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "How many users to insert.")
    var users = 300

    @Option(help: "The first user id.")
    var firstUserId: Int64 = 1

    @Option(help: "Rows are written 1–30 days before this RFC 3339 instant. Default: now.")
    var writtenBefore: String?

    func run() throws {
        let logger = connection.makeLogger(label: "plan-regen.seed-demo")
        let before: Instant
        if let writtenBefore {
            guard let parsed = Instant(rfc3339: writtenBefore) else {
                throw ValidationError("--written-before: '\(writtenBefore)' is not an RFC 3339 instant")
            }
            before = parsed
        } else {
            before = wallClockNow()
        }
        do {
            try DemoUsers.insert(count: users, firstUserID: firstUserId, writtenBefore: before,
                                 into: try connection.connect())
            logger.info("demo users inserted", metadata: ["users": "\(users)"])
        } catch {
            throw fail(error, logger: logger)
        }
    }
}
