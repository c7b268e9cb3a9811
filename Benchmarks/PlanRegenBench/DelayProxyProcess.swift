import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A running `delay-proxy` (Benchmarks/DelayProxy): a TCP port on 127.0.0.1 in front of
/// the server's Unix socket, holding every chunk `delayMicroseconds` in each direction.
final class DelayProxy {
    let process: Process
    let port: Int

    /// Starts a proxy, runs `body` with it, and stops it.
    static func with<T>(delayMicroseconds: Int, socketDirectory: String, port serverPort: Int,
                        _ body: (DelayProxy) throws -> T) throws -> T {
        let proxy = try DelayProxy(delayMicroseconds: delayMicroseconds,
                                   socket: "\(socketDirectory)/.s.PGSQL.\(serverPort)")
        defer {
            proxy.process.terminate()
            proxy.process.waitUntilExit()
        }
        return try body(proxy)
    }

    private init(delayMicroseconds: Int, socket: String) throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let binary = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("delay-proxy")
        // A port of this benchmark's own: its pid spreads concurrent benchmarks apart.
        port = 40_000 + Int(getpid() % 20_000)
        process = Process()
        process.executableURL = binary
        process.arguments = ["\(port)", socket, "\(delayMicroseconds)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let ready = output.fileHandleForReading.availableData
        guard String(decoding: ready, as: UTF8.self).hasPrefix("ready") else {
            process.terminate()
            throw BenchError("delay-proxy did not start on port \(port) (is it built beside plan-regen-bench?)")
        }
    }

    /// A conninfo reaching `database` through the proxy.
    func conninfo(database: String) -> String {
        "host=127.0.0.1 port=\(port) dbname=\(database)"
    }

    /// The proxy's CPU time so far (user and system), from /proc/PID/stat.
    func cpuSeconds() -> Double {
        processCPUSeconds(pid: process.processIdentifier)
    }
}

/// A process's CPU time so far (user and system), from /proc/PID/stat; 0 when unreadable.
func processCPUSeconds(pid: pid_t) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let afterName = stat.lastIndex(of: ")") else { return 0 }
    // Fields after "pid (comm)": state is the 3rd field of the line; utime and stime the 14th and 15th.
    let fields = stat[stat.index(after: afterName)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
