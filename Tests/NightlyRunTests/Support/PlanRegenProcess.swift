import Foundation
import Testing

/// The built `plan-regen` binary run as a real process (exit codes, stdout and stderr as
/// ops see them). `deploy/test.sh` builds it; it sits beside the test bundle.
struct PlanRegenProcess {
    struct Finished {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    let process = Process()
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `plan-regen arguments…` with `DATABASE_URL=databaseURL`. Output goes to
    /// files (a pipe nobody reads would block a run with thousands of lines), or stdout
    /// to `stdoutPipe` when the test reads it itself.
    init(_ arguments: [String], databaseURL: String, outputDirectory: String, stdoutPipe: Pipe? = nil) throws {
        let name = UUID().uuidString
        stdoutPath = outputDirectory + "/\(name).stdout"
        stderrPath = outputDirectory + "/\(name).stderr"
        // Empty files first: FileHandle(forWritingTo:) opens only an existing file.
        try Data().write(to: URL(fileURLWithPath: stdoutPath))
        try Data().write(to: URL(fileURLWithPath: stderrPath))
        process.executableURL = try Self.binary()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        process.environment = environment
        process.standardOutput = try stdoutPipe ?? FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    func wait() throws -> Finished {
        process.waitUntilExit()
        return Finished(exitCode: process.terminationStatus,
                        stdout: try String(contentsOfFile: stdoutPath, encoding: .utf8),
                        stderr: try String(contentsOfFile: stderrPath, encoding: .utf8))
    }

    /// Runs `plan-regen arguments…` to the end.
    static func run(_ arguments: [String], databaseURL: String, outputDirectory: String) throws -> Finished {
        try PlanRegenProcess(arguments, databaseURL: databaseURL, outputDirectory: outputDirectory).wait()
    }

    /// `plan-regen` in the directory of the running test executable.
    static func binary() throws -> URL {
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = testExecutable.deletingLastPathComponent().appendingPathComponent("plan-regen")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "\(binary.path) not found: build it first (deploy/test.sh does: swift build --product plan-regen)")
        return binary
    }
}
