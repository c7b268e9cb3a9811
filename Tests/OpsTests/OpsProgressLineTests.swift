import Foundation
import NightlyRun
import Operations
import PlanStore
import Testing

/// The progress line is for terminals only; log lines always get through whole.
@Suite struct OpsProgressLineTests {
    @Test func withoutATerminalOnlyLogLinesAreWritten() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/stderr"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            let output = ConsoleOutput(descriptor: fd)
            #expect(!output.isTerminal)
            let progress = ProgressLine(output: output, intervalSeconds: 0)
            var counts = RunCounts()
            counts.created = 40
            progress.report(RunProgress(usersDone: 50, usersTotal: 200, counts: counts))
            output.writeLine("a log line")
            progress.finish()
            close(fd)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "a log line\n")
        }
    }

    #if os(Linux)
    @Test func onATerminalALogLineErasesTheProgressLineFirst() throws {
        // A pseudo-terminal pair by hand (posix_openpt is not in Swift's Glibc module).
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(controller >= 0)
        defer { close(controller) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // Linux's TIOCSPTLCK / TIOCGPTN (asm-generic _IOW/_IOR('T', 0x31/0x30, int)):
        // function-like macros Swift does not import.
        try #require(ioctl(controller, 0x4004_5431, &unlock) == 0)
        try #require(ioctl(controller, 0x8004_5430, &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_WRONLY | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        var settings = termios()
        tcgetattr(terminal, &settings)
        cfmakeraw(&settings)  // bytes as written: no \n → \r\n translation
        tcsetattr(terminal, TCSANOW, &settings)

        let output = ConsoleOutput(descriptor: terminal)
        #expect(output.isTerminal)
        var counts = RunCounts()
        counts.created = 1200
        counts.changed = 10
        counts.rejected = 12
        ProgressLine(output: output, intervalSeconds: 0)
            .report(RunProgress(usersDone: 40_000, usersTotal: 120_000, counts: counts))
        output.writeLine("done")

        let expected = "\r\u{1B}[Krun: 40,000 / 120,000 users (33%) · 1,210 written · 12 rejected\r\u{1B}[Kdone\n"
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while received.count < expected.utf8.count {
            let count = read(controller, &buffer, buffer.count)
            try #require(count > 0)
            received += buffer[0..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == expected)
    }
    #endif
}
