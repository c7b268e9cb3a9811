import Synchronization
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
///
/// Workers share one sink: `emit` holds a lock, so one call's lines stay together.
public final class NotificationSink: Sendable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    public let destination: String
    private let emitting = Mutex(Emitting())

    private struct Emitting {
        var fault: FaultInjection?
        var calls = 0
    }

    /// TEST-ONLY (`PLAN_REGEN_FAULT`): kills the process at one call of `emit`.
    public var fault: FaultInjection? {
        get { emitting.withLock { $0.fault } }
        set { emitting.withLock { $0.fault = newValue } }
    }

    public static func standardOutput() -> NotificationSink {
        NotificationSink(descriptor: STDOUT_FILENO, ownsDescriptor: false, destination: "stdout")
    }

    /// Opens `path` for appending. A run killed in the middle of a write can leave a
    /// partial last line (a large write to a file is not all-or-nothing); the file is then
    /// ended with a newline first, so that fragment stays a line of its own instead of
    /// swallowing the next complete line. Consumers skip a line that does not parse; its
    /// notification is emitted again whole, because its batch was never marked emitted.
    public static func appending(toFile path: String) throws -> NotificationSink {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RunError.notificationFile(path: path, reason: String(cString: strerror(errno)))
        }
        let sink = NotificationSink(descriptor: fd, ownsDescriptor: true, destination: path)
        var status = stat()
        var last: UInt8 = 0
        if fstat(fd, &status) == 0, status.st_size > 0, pread(fd, &last, 1, status.st_size - 1) == 1,
           last != 0x0A {
            try sink.writeAll([0x0A])
        }
        return sink
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
        try emitting.withLock { state in
            state.calls += 1
            let injected = state.fault.flatMap { $0.call == state.calls ? $0 : nil }
            if injected?.point == .beforeEmit { injected?.killProcess() }
            if injected?.point == .midEmit {
                try writeLines(lines.prefix(lines.count / 2))
                injected?.killProcess()
            }
            try writeLines(lines[...])
            if injected?.point == .afterEmit { injected?.killProcess() }
        }
    }

    private func writeLines(_ lines: ArraySlice<String>) throws {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines {
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
        }
        try writeAll(buffer)
    }

    /// Hands every byte to the kernel, retrying short writes.
    private func writeAll(_ buffer: [UInt8]) throws {
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
