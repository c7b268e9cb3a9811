#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LineOutput
import Synchronization

/// Standard error, shared by the log lines and the terminal's progress line.
///
/// Log lines are written whole, one `write` each, so lines from several threads never
/// interleave. On a terminal, a progress line may stand below the last log line; a log
/// line first erases it, and `showStatus` redraws it in place (`\r`, erase to end).
public final class ConsoleOutput: Sendable {
    private let descriptor: Int32
    /// Whether the descriptor is a terminal: only then is a progress line drawn.
    public let isTerminal: Bool
    private let statusShown = Mutex(false)

    public init(descriptor: Int32 = STDERR_FILENO) {
        self.descriptor = descriptor
        self.isTerminal = isatty(descriptor) == 1
    }

    /// Writes `line` and a newline, erasing the progress line first if one is shown.
    public func writeLine(_ line: String) {
        statusShown.withLock { shown in
            var bytes: [UInt8] = shown ? Array("\r\u{1B}[K".utf8) : []
            shown = false
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
            write(bytes)
        }
    }

    /// Replaces the progress line with `text` (terminals only; ignored otherwise).
    public func showStatus(_ text: String) {
        guard isTerminal else { return }
        statusShown.withLock { shown in
            shown = true
            write(Array("\r\u{1B}[K\(text)".utf8))
        }
    }

    /// Erases the progress line, if one is shown.
    public func clearStatus() {
        statusShown.withLock { shown in
            guard shown else { return }
            shown = false
            write(Array("\r\u{1B}[K".utf8))
        }
    }

    /// A failing stderr is ignored: there is nowhere left to report it.
    private func write(_ bytes: [UInt8]) {
        _ = LineWriter.writeAll(bytes, to: descriptor)
    }
}
