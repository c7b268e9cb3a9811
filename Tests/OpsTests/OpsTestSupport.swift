import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres
import Testing
import TestSupport

/// A fresh database with the job's schema and `users` demo users (deterministic rows,
/// written 1–30 days before `writtenBefore`; some incomplete, some invalid).
func withDemoDatabase<Result>(users: Int, writtenBefore: Instant = demoWrittenBefore,
                              _ body: (TestDatabase, PostgresConnection) throws -> Result) throws -> Result {
    try TestDatabase.withFresh { database in
        let connection = try database.connect()
        let migrator = Migrator(connection: connection)
        try migrator.apply(Migration.reference)
        try migrator.apply(Migration.planRegen)
        try DemoUsers.insert(count: users, writtenBefore: writtenBefore, into: connection)
        let result = try body(database, connection)
        // Whatever the test's runs stored validates against the published schemas.
        for check in try PublishedSchema.checksOfStoredDocuments(connection, what: "a demo database") {
            #expect(check.isValid, "\(check)")
        }
        return result
    }
}

let demoWrittenBefore = Instant(rfc3339: "2026-03-01T00:00:00Z")!
/// The first run: every complete, valid demo user gets a plan (cycle start ~ 2026-03-01).
let firstRunAt = "2026-03-01T12:00:00Z"
/// Two weeks later: lose_weight users switch to maintenance (day 14).
let switchRunAt = "2026-03-15T12:00:00Z"

/// A folder removed after `body`.
func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ops-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The built `plan-regen` binary as a real process, stdout and stderr captured in files
/// (a pipe nobody reads would block a long run).
struct PlanRegenProcess {
    struct Finished {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    let process = Process()
    private let stdoutPath: String
    private let stderrPath: String

    init(_ arguments: [String], databaseURL: String?, folder: String, environment extra: [String: String] = [:]) throws {
        let name = UUID().uuidString
        stdoutPath = "\(folder)/\(name).stdout"
        stderrPath = "\(folder)/\(name).stderr"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = try Self.binary()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let databaseURL { environment["DATABASE_URL"] = databaseURL }
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    func wait() throws -> Finished {
        process.waitUntilExit()
        return Finished(exitCode: process.terminationStatus,
                        stdout: try String(contentsOfFile: stdoutPath, encoding: .utf8),
                        stderr: try String(contentsOfFile: stderrPath, encoding: .utf8))
    }

    static func run(_ arguments: [String], databaseURL: String?, folder: String,
                    environment: [String: String] = [:]) throws -> Finished {
        try PlanRegenProcess(arguments, databaseURL: databaseURL, folder: folder, environment: environment).wait()
    }

    /// `plan-regen` beside the test executable (`deploy/test.sh` builds it).
    static func binary() throws -> URL {
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = testExecutable.deletingLastPathComponent().appendingPathComponent("plan-regen")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "\(binary.path) not found: build it first (deploy/test.sh does: swift build --product plan-regen)")
        return binary
    }
}

/// `plan-regen run arguments…` against `database`, notifications appended to a file in
/// `folder`; expects it to complete (exit 0).
func runToCompletion(_ arguments: [String], on database: TestDatabase, folder: String) throws {
    let run = try PlanRegenProcess.run(["run", "--notifications", folder + "/n.jsonl"] + arguments,
                                       databaseURL: database.conninfo, folder: folder)
    #expect(run.exitCode == 0, "\(arguments): \(run.stderr)")
}

/// Non-empty lines of `text`.
func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
}

extension PostgresConnection {
    /// The first column of the single row `sql` returns, as an integer.
    func count(_ sql: SQLQuery) throws -> Int {
        try query(sql, purpose: "test count").singleRow().int(0)
    }
}

/// Checks the metrics file at `path` with `promtool check metrics` (Debian's prometheus,
/// which `deploy/test.sh` installs). Where promtool is missing the check is left out —
/// except under `CI=true`, where that is a failure.
func expectPromtoolAccepts(metricsFile path: String) throws {
    guard let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        .first(where: FileManager.default.isExecutableFile(atPath:)) else {
        let ci = ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
        if ci { Issue.record("promtool is not installed (Debian package prometheus): run the tests with deploy/test.sh") }
        return
    }
    let output = path + ".promtool"
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: promtool)
    process.arguments = ["check", "metrics"]
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0,
            "promtool check metrics \(path): \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
}
