import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes lines to stdout or to a file opened for appending: the dry-run report,
/// `history`'s export, and under `NotificationSink` the notification lines. `emit`
/// returns only once every byte was handed to the kernel (and, for a durable file, synced
/// to disk), and holds a lock, so the lines of one call stay together when workers share
/// a writer.
///
/// The process must ignore SIGPIPE (the CLI does) so that a closed pipe becomes a thrown
/// error instead of killing it.
public final class LineWriter: Sendable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// `stdout` or the file's path, for messages.
    public let destination: String
    private let writing = Mutex(())
    /// Each emit ends with `fsync` (`appending(toFile:durable:)`).
    private let durable: Bool

    public static func standardOutput() -> LineWriter {
        LineWriter(descriptor: STDOUT_FILENO, ownsDescriptor: false, destination: "stdout")
    }

    /// Opens `path` for appending. A process killed in the middle of a write can leave a
    /// partial last line (a large write to a file is not all-or-nothing); the file is then
    /// ended with a newline first, so that fragment stays a line of its own instead of
    /// swallowing the next complete line.
    ///
    /// `durable`: for a regular file, every `emit` returns only once the bytes are on disk
    /// (`fsync`), and a file this call creates has its directory entry synced too, so that
    /// lines marked emitted survive a host crash or a power loss (the notification lines).
    public static func appending(toFile path: String, durable: Bool = false) throws -> LineWriter {
        var fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let created = fd >= 0
        if !created, errno == EEXIST { fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC) }
        guard fd >= 0 else { throw LineWriterError(action: "open \(path) for appending", errno: errno) }
        var status = stat()
        let described = fstat(fd, &status) == 0
        // Only a regular file is synced: /dev/null or a FIFO cannot be (fsync: EINVAL).
        let regular = described && (status.st_mode & S_IFMT) == S_IFREG
        let writer = LineWriter(descriptor: fd, ownsDescriptor: true, destination: path, durable: durable && regular)
        if durable, regular, created { try syncDirectory(of: path) }
        var last: UInt8 = 0
        if regular, status.st_size > 0, pread(fd, &last, 1, status.st_size - 1) == 1, last != 0x0A {
            try writer.emit([""])  // the newline that ends the fragment
        }
        return writer
    }

    /// Syncs the directory holding `path`, so that a file just created in it stays there.
    private static func syncDirectory(of path: String) throws {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw LineWriterError(action: "open the directory of \(path) to sync it", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw LineWriterError(action: "fsync the directory of \(path)", errno: errno) }
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, destination: String, durable: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.destination = destination
        self.durable = durable
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes each line followed by a newline, in one piece. Throws on a write error (a
    /// closed pipe, a full disk).
    public func emit(_ lines: some Collection<String>) throws {
        try emit(lines: Self.bytes(ofLines: lines))
    }

    /// `lines`, each followed by a line feed, as one buffer.
    public static func bytes(ofLines lines: some Collection<String>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Writes `bytes`, whole lines each ending in a line feed, in one piece (a batch's
    /// notification lines, encoded straight into one buffer). Throws as `emit(_:)`.
    public func emit(lines bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        assert(bytes.last == 0x0A, "whole lines")
        try writing.withLock { _ in
            if let code = Self.writeAll(bytes, to: descriptor) {
                throw LineWriterError(action: "write to \(destination)", errno: code)
            }
            if durable, fsync(descriptor) != 0 {
                throw LineWriterError(action: "fsync \(destination)", errno: errno)
            }
        }
    }

    /// Hands every byte to the kernel, retrying short writes and EINTR; returns errno on
    /// failure. The one write loop of the package (stderr and the metrics file use it too).
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}

/// Lines that could not be written: what was being done, and the system's reason.
public struct LineWriterError: Error, CustomStringConvertible, Sendable {
    public var action: String
    public var reason: String

    init(action: String, errno code: Int32) {
        self.action = action
        self.reason = String(cString: strerror(code))
    }

    public var description: String { "cannot \(action): \(reason)" }
}
