import Foundation
import Testing

/// `--help` for every command (the deploy units: DeployFilesTests).

/// The repository's root (this file is Tests/OpsTests/OpsCommandLineTests.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
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

    static let commands = ["run", "status", "history", "report", "explain", "preview", "deliver", "prune", "forget", "migrate",
                           "seed-demo"]

    /// Every command's `--help` ends its discussion with its exit codes, each `0` to `75` a
    /// line; the top level lists them all, and so does the operations guide's table.
    @Test func everyCommandsHelpListsItsExitCodesAsTheOperationsGuideDoes() throws {
        try withTemporaryDirectory { folder in
            for command in Self.commands {
                let help = try PlanRegenProcess.run(["help", command], databaseURL: nil, folder: folder)
                let codes = Self.exitCodes(inHelp: help.stdout)
                #expect(codes.isSuperset(of: [0, 1, 64]), "\(command): \(codes)")
            }
            let all = Self.exitCodes(inHelp: try PlanRegenProcess.run(["--help"], databaseURL: nil, folder: folder).stdout)
            #expect(all == [0, 1, 2, 3, 4, 5, 6, 64, 75])
            let guide = try String(contentsOfFile: repositoryRoot + "/docs/operations.md", encoding: .utf8)
            let section = guide.components(separatedBy: "### Exit codes and run statuses")[1]
                .components(separatedBy: "\n## ")[0]
            let documented = Set(lines(section).compactMap { line -> Int32? in
                guard line.hasPrefix("| ") else { return nil }
                return Int32(line.dropFirst(2).prefix { $0 != " " })
            })
            #expect(documented == all)
        }
    }

    static func exitCodes(inHelp help: String) -> Set<Int32> {
        guard let section = help.components(separatedBy: "\nExit codes:\n").dropFirst().first else { return [] }
        return Set(lines(section).prefix { $0.hasPrefix("  ") }.compactMap { Int32($0.split(separator: " ").first ?? "") })
    }

    /// The completions deploy/make-manual.sh installs know every command; the script
    /// itself parses and is the documented way to build the man page.
    @Test(arguments: ["bash", "zsh", "fish"])
    func theCompletionsKnowEveryCommand(shell: String) throws {
        try withTemporaryDirectory { folder in
            let script = try PlanRegenProcess.run(["--generate-completion-script", shell], databaseURL: nil, folder: folder)
            #expect(script.exitCode == 0, "\(script.stderr)")
            for command in Self.commands {
                #expect(script.stdout.contains(command), "\(shell): \(command)")
            }
            #expect(script.stdout.contains(shell == "fish" ? "-l 'check'" : "--check"), "\(shell): status --check")
        }
        let manual = repositoryRoot + "/deploy/make-manual.sh"
        #expect(FileManager.default.isExecutableFile(atPath: manual))
        let syntax = Process()
        syntax.executableURL = URL(fileURLWithPath: "/bin/bash")
        syntax.arguments = ["-n", manual]
        try syntax.run()
        syntax.waitUntilExit()
        #expect(syntax.terminationStatus == 0, "bash -n \(manual)")
        let guide = try String(contentsOfFile: repositoryRoot + "/docs/operations.md", encoding: .utf8)
        #expect(guide.contains("deploy/make-manual.sh"))
    }

    @Test func versionNamesTheRulesVersion() throws {
        try withTemporaryDirectory { folder in
            let version = try PlanRegenProcess.run(["--version"], databaseURL: nil, folder: folder)
            #expect(version.stdout.hasPrefix("plan-regen "))
            #expect(version.stdout.contains(", rules 2026.1, schema "))
        }
    }
}
