// delay-proxy: a TCP proxy that holds every chunk of bytes for a fixed time in each
// direction, so the benchmark can measure plan-regen against a database "1 ms away"
// (0.5 ms each way) on one machine, where `tc netem` is not available.
//
//   delay-proxy LISTEN_PORT UNIX_SOCKET_PATH DELAY_MICROSECONDS
//
// Each accepted connection gets a connection to the server's Unix socket and, per
// direction, a reader thread (stamps each chunk with the instant it may leave) and a
// writer thread (waits for that instant, then writes): chunks keep their order and a
// pipelined stream is delayed, not throttled. It prints "ready" once listening.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, let listenPort = UInt16(arguments[1]), let delayMicroseconds = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: delay-proxy LISTEN_PORT UNIX_SOCKET_PATH DELAY_MICROSECONDS\n".utf8))
    exit(64)
}
let serverSocketPath = arguments[2]
let delayNanoseconds = delayMicroseconds * 1000
signal(SIGPIPE, SIG_IGN)

func fail(_ what: String) -> Never {
    FileHandle.standardError.write(Data("delay-proxy: \(what): \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Chunks read from one side, each with the instant it may be written to the other.
final class DelayedChunks: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [(due: UInt64, bytes: [UInt8])] = []
    private var closed = false

    func push(_ bytes: [UInt8]) {
        condition.lock()
        chunks.append((monotonicNanoseconds() + delayNanoseconds, bytes))
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// The next chunk once it is due; nil after `close` with nothing left.
    func pop() -> [UInt8]? {
        condition.lock()
        while chunks.isEmpty && !closed { condition.wait() }
        guard !chunks.isEmpty else {
            condition.unlock()
            return nil
        }
        let (due, bytes) = chunks.removeFirst()
        condition.unlock()
        let now = monotonicNanoseconds()
        if due > now {
            var wait = timespec(tv_sec: Int(due - now) / 1_000_000_000, tv_nsec: Int(due - now) % 1_000_000_000)
            var left = timespec()
            while nanosleep(&wait, &left) != 0 && errno == EINTR { wait = left }
        }
        return bytes
    }
}

/// A client and its server connection, closed once both directions have ended.
final class SocketPair: @unchecked Sendable {
    let client: Int32, server: Int32
    private let lock = NSLock()
    private var directionsOpen = 2

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    func directionEnded() {
        lock.lock()
        directionsOpen -= 1
        let last = directionsOpen == 0
        lock.unlock()
        if last {
            close(client)
            close(server)
        }
    }
}

/// Copies `from` to `to` with the delay, on two threads; shuts `to` down for writing at
/// the end so the other side sees the close.
func relay(from source: Int32, to destination: Int32, pair: SocketPair) {
    let queue = DelayedChunks()
    Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            queue.push(Array(buffer[0..<count]))
        }
        queue.close()
    }
    Thread.detachNewThread {
        while let bytes = queue.pop() {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(destination, $0.baseAddress! + offset, bytes.count - offset) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
            if offset < bytes.count { break }
        }
        shutdown(destination, Int32(SHUT_WR))
        pair.directionEnded()
    }
}

func connectToServer() -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { path in
        let bytes = Array(serverSocketPath.utf8.prefix(path.count - 1))
        path.copyBytes(from: bytes)
        path[bytes.count] = 0
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if connected != 0 {
        close(fd)
        return nil
    }
    return fd
}

let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
guard listener >= 0 else { fail("socket") }
var reuse: Int32 = 1
setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
var listenAddress = sockaddr_in()
listenAddress.sin_family = sa_family_t(AF_INET)
listenAddress.sin_port = listenPort.bigEndian
listenAddress.sin_addr.s_addr = inet_addr("127.0.0.1")
let bound = withUnsafePointer(to: &listenAddress) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
guard bound == 0 else { fail("bind 127.0.0.1:\(listenPort)") }
guard listen(listener, 64) == 0 else { fail("listen") }
FileHandle.standardOutput.write(Data("ready\n".utf8))

while true {
    let client = accept(listener, nil, nil)
    if client < 0 {
        if errno == EINTR { continue }
        fail("accept")
    }
    var noDelay: Int32 = 1
    setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    guard let server = connectToServer() else {
        close(client)
        continue
    }
    let pair = SocketPair(client: client, server: server)
    relay(from: client, to: server, pair: pair)
    relay(from: server, to: client, pair: pair)
}
