#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where notification JSON lines go: stdout (default) or a file given by
/// `--notifications FILE`, opened for appending. `emit` returns only once every byte
/// was handed to the kernel, because the outbox marks the lines emitted right after.
///
/// The process must ignore SIGPIPE (the CLI does) so that a closed pipe becomes a
/// thrown error — lines stay pending — instead of killing the run.
public final class NotificationSink {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    public let destination: String
    /// TEST-ONLY (`PLAN_REGEN_FAULT`): kills the process at one call of `emit`.
    public var fault: FaultInjection?
    private var emitCalls = 0

    public static func standardOutput() -> NotificationSink {
        NotificationSink(descriptor: STDOUT_FILENO, ownsDescriptor: false, destination: "stdout")
    }

    public static func appending(toFile path: String) throws -> NotificationSink {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RunError.notificationFile(path: path, reason: String(cString: strerror(errno)))
        }
        return NotificationSink(descriptor: fd, ownsDescriptor: true, destination: path)
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, destination: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.destination = destination
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes each line followed by a newline. Throws on a write error (a closed pipe, a
    /// full disk) so the caller leaves the lines pending in the outbox.
    public func emit(_ lines: [String]) throws {
        guard !lines.isEmpty else { return }
        emitCalls += 1
        let fault = self.fault.flatMap { $0.call == emitCalls ? $0.point : nil }
        if fault == .beforeEmit { self.fault?.killProcess() }
        if fault == .midEmit {
            try writeLines(lines.prefix(lines.count / 2))
            self.fault?.killProcess()
        }
        try writeLines(lines[...])
        if fault == .afterEmit { self.fault?.killProcess() }
    }

    private func writeLines(_ lines: ArraySlice<String>) throws {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines {
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
        }
        try buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw RunError.notificationWrite(destination: destination, reason: String(cString: strerror(errno)))
                }
                offset += written
            }
        }
    }
}
