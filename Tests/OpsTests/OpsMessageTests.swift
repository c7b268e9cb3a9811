import Foundation
import Testing

/// Messages that say what is wrong and what to do, for the mistakes people make.
@Suite struct OpsMessageTests {
    /// The commands `plan-regen --help` lists (so a new one is checked too).
    private func commands(folder: String) throws -> [String] {
        let help = try PlanRegenProcess.run(["--help"], databaseURL: nil, folder: folder).stdout
        let section = try #require(help.components(separatedBy: "SUBCOMMANDS:\n").last)
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.contains("See 'plan-regen help") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    @Test func everyHelpTextReadsCleanly() throws {
        try withTemporaryDirectory { folder in
            let commands = try commands(folder: folder)
            #expect(commands.count >= 7, "\(commands)")
            for command in [nil] + commands.map(Optional.some) {
                let help = try PlanRegenProcess.run(command.map { ["help", $0] } ?? ["--help"],
                                                    databaseURL: nil, folder: folder)
                let name = command ?? "plan-regen"
                #expect(help.exitCode == 0)
                #expect(!help.stdout.contains("\\"), "a stray backslash in the help of \(name)")
                // Examples fit the 80 columns ArgumentParser wraps at: no example is cut in two.
                let examples = help.stdout.components(separatedBy: "Examples:\n").dropFirst().first?
                    .components(separatedBy: "\n\n").first ?? ""
                for line in examples.split(separator: "\n") {
                    #expect(line.hasPrefix("  plan-regen "), "a wrapped example in the help of \(name): \(line)")
                }
            }
        }
    }

    /// `--user -5` reached ArgumentParser as a flag ("Missing value for '--user <id>'").
    @Test(arguments: [["run"], ["history"], ["explain"], ["forget", "--user", "7"]])
    func aNegativeUserIdIsCalledWhatItIs(command: [String]) throws {
        try withTemporaryDirectory { folder in
            let result = try PlanRegenProcess.run(command + ["--user", "-5"], databaseURL: nil, folder: folder)
            #expect(result.exitCode == 64)
            #expect(result.stderr.contains("--user -5: user ids are positive integers, e.g. --user 42"), "\(result.stderr)")
            #expect(!result.stderr.contains("Missing value"))
        }
    }

    /// libpq reads anything but postgresql:// and postgres:// without an '=' as a database
    /// name: a typo in the scheme is refused before it connects, without the password.
    @Test func aURLWithAnUnknownSchemeIsRefused() throws {
        try withTemporaryDirectory { folder in
            let url = "postgresq://plan_regen:typo-secret@db.internal/app"
            for (arguments, environment) in [(["--database-url", url], nil as String?), ([], url)] {
                let result = try PlanRegenProcess.run(["history", "--user", "1"] + arguments,
                                                      databaseURL: environment, folder: folder)
                #expect(result.exitCode == 1)
                #expect(result.stderr.contains("'postgresq://' is not a PostgreSQL URL scheme: write postgresql://"),
                        "\(result.stderr)")
                #expect(!result.stderr.contains("typo-secret"))
                #expect(!result.stderr.contains("database \"postgresq"), "libpq was never asked")
            }
        }
    }

    /// An incomplete profile is skipped, not rejected: explain says what is missing
    /// instead of sending ops to an empty plan_rejections.
    @Test func explainSaysWhatAnIncompleteUserIsMissing() throws {
        // Demo user 5 (5 % 41 == 5) has not completed onboarding.
        try withDemoDatabase(users: 10) { database, connection in
            try withTemporaryDirectory { folder in
                let run = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", folder + "/n"],
                                                   databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 0, "\(run.stderr)")
                #expect(try connection.count("SELECT count(*)::int FROM plan_rejections WHERE user_id = 5") == 0)
                let explained = try PlanRegenProcess.run(["explain", "--user", "5", "--as-of", firstRunAt],
                                                         databaseURL: database.conninfo, folder: folder)
                #expect(explained.exitCode == 0, "\(explained.stderr)")
                #expect(explained.stdout.contains("No plan yet."))
                #expect(explained.stdout.contains("are incomplete (onboarding_completed is not true): no plan is made "
                                                  + "from them and nothing is recorded in plan_rejections"),
                        "\(explained.stdout)")
                #expect(!explained.stdout.contains("see plan_rejections"))

                // Before any run judged it: what a run would do, and why.
                try connection.execute("DELETE FROM plan_state WHERE user_id = 5", purpose: "test: never judged")
                let unjudged = try PlanRegenProcess.run(["explain", "--user", "5", "--as-of", firstRunAt],
                                                        databaseURL: database.conninfo, folder: folder)
                #expect(unjudged.stdout.contains("the live settings are incomplete (onboarding_completed is not true): "
                                                 + "skipped"), "\(unjudged.stdout)")
            }
        }
    }
}
