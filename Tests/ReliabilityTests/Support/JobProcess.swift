import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `plan-regen` binary run as a real process, as the timer runs it: stdout and
/// stderr go to files (no pipe can fill up and stall it), and the test can SIGKILL it.
final class JobProcess {
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `plan-regen arguments…` with `extraEnvironment` on top of this process's; the
    /// tested build unless `binary` names another (the deployed release build).
    init(_ arguments: [String], environment extraEnvironment: [String: String] = [:], binary: URL? = nil) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("plan-regen-job-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stdoutURL = directory.appendingPathComponent("stdout")
        stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = try binary ?? Self.binary()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    /// Runs `plan-regen arguments…` to its end.
    static func run(_ arguments: [String], environment: [String: String] = [:], binary: URL? = nil) throws
        -> JobResult {
        try JobProcess(arguments, environment: environment, binary: binary).waitForExit()
    }

    var isRunning: Bool { process.isRunning }

    /// `kill -9`.
    func killNow() {
        kill(process.processIdentifier, SIGKILL)
    }

    func waitForExit() throws -> JobResult {
        process.waitUntilExit()
        let result = JobResult(
            status: process.terminationStatus,
            killed: process.terminationReason == .uncaughtSignal,
            stdout: try String(contentsOf: stdoutURL, encoding: .utf8),
            stderr: try String(contentsOf: stderrURL, encoding: .utf8))
        try? FileManager.default.removeItem(at: stdoutURL.deletingLastPathComponent())
        return result
    }

    /// The binary `deploy/test.sh` builds beside the test bundle (`swift build --product
    /// plan-regen`), or `PLAN_REGEN_BINARY`.
    static func binary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["PLAN_REGEN_BINARY"] {
            return URL(fileURLWithPath: path)
        }
        let testExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testExecutable.deletingLastPathComponent()
        // On macOS the tests run inside a .xctest bundle: climb out of it.
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        let binary = directory.appendingPathComponent("plan-regen")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw JobProcessError.binaryMissing(binary.path)
        }
        return binary
    }
}

/// How a `plan-regen` process ended.
struct JobResult {
    var status: Int32
    /// Ended by a signal (status is then the signal number).
    var killed: Bool
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    /// The lines logged at level critical: a failed run's one reason.
    var criticalLines: [String] { stderrLines.filter { $0.contains(" critical ") } }
}

enum JobProcessError: Error, CustomStringConvertible {
    case binaryMissing(String)

    var description: String {
        switch self {
        case .binaryMissing(let path):
            "no plan-regen binary at \(path): run the tests with deploy/test.sh, which builds it "
                + "(or set PLAN_REGEN_BINARY)"
        }
    }
}

extension String {
    /// Percent-encoded for a URI component (everything but unreserved characters).
    var uriEncoded: String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var encoded = ""
        for byte in utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
