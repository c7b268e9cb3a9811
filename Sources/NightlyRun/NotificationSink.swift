#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where notification JSON lines go: stdout (default) or a file given by
/// `--notifications FILE`, opened for appending. Every `emit` is flushed before it
/// returns, because the outbox marks lines emitted right after.
public final class NotificationSink {
    private let stream: UnsafeMutablePointer<FILE>
    private let ownsStream: Bool
    public let destination: String

    public static func standardOutput() -> NotificationSink {
        NotificationSink(stream: stdout, ownsStream: false, destination: "stdout")
    }

    public static func appending(toFile path: String) throws -> NotificationSink {
        guard let file = fopen(path, "a") else {
            throw RunError.notificationFile(path: path, reason: String(cString: strerror(errno)))
        }
        return NotificationSink(stream: file, ownsStream: true, destination: path)
    }

    private init(stream: UnsafeMutablePointer<FILE>, ownsStream: Bool, destination: String) {
        self.stream = stream
        self.ownsStream = ownsStream
        self.destination = destination
    }

    deinit {
        if ownsStream { fclose(stream) }
    }

    /// Writes each line plus a newline, then flushes. Throws on a write error (a closed
    /// pipe, a full disk) so the lines stay pending in the outbox.
    public func emit(_ lines: [String]) throws {
        for line in lines {
            var ok = fputs(line, stream) >= 0
            ok = ok && fputc(0x0A, stream) != EOF
            if !ok { throw RunError.notificationWrite(destination: destination, reason: String(cString: strerror(errno))) }
        }
        if fflush(stream) != 0 {
            throw RunError.notificationWrite(destination: destination, reason: String(cString: strerror(errno)))
        }
    }
}
