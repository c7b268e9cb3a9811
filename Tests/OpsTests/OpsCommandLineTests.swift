import Foundation
import Testing

/// `--help` for every command (the deploy units: DeployFilesTests).
@Suite struct OpsCommandLineTests {
    @Test(arguments: ["run", "history", "explain", "prune", "migrate", "seed-demo"])
    func everyCommandsHelpHasExamples(command: String) throws {
        try withTemporaryDirectory { folder in
            let help = try PlanRegenProcess.run(["help", command], databaseURL: nil, folder: folder)
            #expect(help.exitCode == 0)
            #expect(help.stdout.contains("Examples:"))
            #expect(help.stdout.contains("plan-regen \(command)"))
        }
    }

    @Test func theTopLevelHelpListsEveryCommandWithExamples() throws {
        try withTemporaryDirectory { folder in
            let help = try PlanRegenProcess.run(["--help"], databaseURL: nil, folder: folder)
            #expect(help.exitCode == 0)
            #expect(help.stdout.contains("Examples:"))
            for command in ["run", "history", "explain", "prune", "migrate", "seed-demo"] {
                #expect(help.stdout.contains("  \(command) "), "\(command) missing from --help")
            }
        }
    }

    @Test func versionNamesTheRulesVersion() throws {
        try withTemporaryDirectory { folder in
            let version = try PlanRegenProcess.run(["--version"], databaseURL: nil, folder: folder)
            #expect(version.stdout.hasPrefix("plan-regen "))
            #expect(version.stdout.contains(", rules 2026.1, schema "))
        }
    }
}
