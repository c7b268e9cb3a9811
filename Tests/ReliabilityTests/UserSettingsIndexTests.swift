import Foundation
import PlanStore
import Testing

/// The index on user_settings(updated_at) is the app owner's step; without it every run
/// scans the table. `migrate`, `run` and `status` each say so in a warning line naming the
/// statement to run, and stay quiet once it exists.
@Suite struct UserSettingsIndexTests {
    @Test func migrateRunAndStatusWarnWhileTheIndexIsMissing() throws {
        try JobDatabase.withFresh { database in
            try database.owner().execute("DROP INDEX user_settings_updated_at_idx", purpose: "test")
            let commands: [[String]] = [
                ["migrate", "--database-url", database.database.conninfo],
                ["run", "--database-url", database.jobConninfo, "--as-of", "2026-03-01T12:00:00Z"],
                ["status", "--database-url", database.jobConninfo],
            ]
            for command in commands {
                let result = try JobProcess.run(command)
                #expect(result.status == 0, "\(command[0]): \(result.stderr)")
                #expect(result.stderr.contains(" warning \(UserSettingsIndex.missingWarning)"), "\(command[0]): \(result.stderr)")
            }
            try database.owner().execute(
                "CREATE INDEX user_settings_updated_at_idx ON user_settings (updated_at)", purpose: "test")
            for command in commands {
                let result = try JobProcess.run(command)
                #expect(result.status == 0, "\(command[0]): \(result.stderr)")
                #expect(!result.stderr.contains("user_settings has no index"), "\(command[0]): \(result.stderr)")
            }
        }
    }
}
