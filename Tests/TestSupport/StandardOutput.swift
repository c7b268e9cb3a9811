import Foundation

/// Runs `executable` with `arguments` to its end: its exit status and what it wrote to
/// stdout (stderr goes where the test's own goes). Stdout is read to its end before the
/// wait, so an output larger than a pipe's buffer cannot block it.
public func runCapturingStandardOutput(_ executable: URL, _ arguments: [String]) throws
    -> (status: Int32, stdout: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
