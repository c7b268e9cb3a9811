import ArgumentParser
import DemoData
import Foundation
import Operations
import PlanRules
import PlanStore

struct SeedDemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo",
        abstract: "Fills user_settings with varied demo users (never on production).",
        discussion: """
            Inserts made-up users (every goal, 30 time zones, some incomplete, some invalid) \
            for demos and benchmarks. It refuses a user_settings table that already has rows, \
            so it cannot mix demo users into a real database: point it at an empty one, or \
            pass --force to add more demo users to a demo database (exit \(ExitCodes.usage.code) when refused).

            Examples:
              plan-regen seed-demo --users 300
              plan-regen seed-demo --users 100000 --first-user-id 1000001 --force

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "How many users to insert.")
    var users = 300

    @Option(help: "The first user id.")
    var firstUserId: Int64 = 1

    @Option(help: "Rows are written 1–30 days before this RFC 3339 instant. Default: now.", transform: Instant.parse)
    var writtenBefore: Instant?

    @ArgumentParser.Flag(help: "Insert even when user_settings already has rows (a demo database being topped up).")
    var force = false

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
        guard firstUserId >= 1 else { throw ValidationError("--first-user-id: user ids are positive integers") }
    }

    func run() throws {
        let before = writtenBefore ?? wallClockNow()
        try connection.run("seed-demo") { logger in
            let database = try connection.connect()
            let existing = try DemoUsers.existingUsers(in: database)
            if existing > 0, !force {
                throw Refusal(description: """
                    refusing to seed: user_settings on database \(database.database) at \(database.host):\(database.port) \
                    already has \(existing >= 1000 ? "1000 or more" : "\(existing)") rows, and seed-demo inserts made-up \
                    users; point --database-url (or DATABASE_URL) at an empty demo or benchmark database, or pass \
                    --force to add demo users to this one
                    """)
            }
            try DemoUsers.insert(count: users, firstUserID: firstUserId, writtenBefore: before, into: database)
            logger.info("demo users inserted", metadata: [
                "users": "\(users)", "already_there": "\(existing >= 1000 ? "1000+" : "\(existing)")"])
        }
    }
}
