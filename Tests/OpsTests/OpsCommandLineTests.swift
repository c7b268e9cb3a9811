import Foundation
import Testing

/// `--help` for every command, and the deploy units.
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
            #expect(version.stdout.contains("(rules 2026.1)"))
        }
    }

    /// `systemd-analyze verify` on the units, with ExecStart pointing at the built binary
    /// (verify checks that it exists). Skipped where systemd is not installed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func theSystemdUnitsVerify() throws {
        let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/systemd").standardized.path
        try withTemporaryDirectory { folder in
            let service = try String(contentsOfFile: deploy + "/plan-regen.service", encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/plan-regen", with: try PlanRegenProcess.binary().path)
            try service.write(toFile: folder + "/plan-regen.service", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: deploy + "/plan-regen.timer", toPath: folder + "/plan-regen.timer")
            let verify = Process()
            verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
            verify.arguments = ["verify", folder + "/plan-regen.service", folder + "/plan-regen.timer"]
            let errors = Pipe()
            verify.standardError = errors
            try verify.run()
            let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            verify.waitUntilExit()
            #expect(verify.terminationStatus == 0, "\(output)")
            #expect(output.isEmpty, "systemd-analyze warned: \(output)")
        }
    }
}
