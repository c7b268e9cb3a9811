import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A real Prometheus Pushgateway (Debian's `prometheus-pushgateway`) for tests of
/// `run --metrics-push`: on 127.0.0.1 on a private port, as the `postgres` user when the
/// tests run as root, without persistence (`--persistence.file=`: Debian's default would
/// write to /var/lib/prometheus), stopped on `stop()`, on `deinit` and — should the test
/// process end first — by an `ExitWatchdog`.
///
/// ```swift
/// let gateway = try Pushgateway()
/// defer { gateway.stop() }
/// … plan-regen run --metrics-push gateway.url …
/// let exposition = try gateway.metrics()
/// ```
final class Pushgateway {
    private(set) var port = 0
    let directory: URL
    private var pid: pid_t = 0
    private var watchdog: ExitWatchdog?

    init() throws {
        let executable = try RequiredComponent.pushgateway.path()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("pushgateway.log").path
        // A free port can be taken between the check and the bind: try others.
        for attempt in 1...5 {
            port = try PgBouncer.freePort()
            pid = try Subprocess.spawn(
                Subprocess.asServerOwner([executable, "--web.listen-address=127.0.0.1:\(port)", "--persistence.file=",
                                          "--log.level=warn"]),
                stdout: log, stderr: log)
            watchdog = try ExitWatchdog(["/bin/kill", "-TERM", String(pid)])
            if try waitUntilListening(port: port) { break }
            stop()
            guard attempt < 5 else {
                throw PushgatewayError.notListening(port, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `http://127.0.0.1:PORT`, what `--metrics-push` takes.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops the gateway (SIGTERM) and waits for it. Safe to repeat.
    func stop() {
        watchdog?.cancel()
        watchdog = nil
        guard pid != 0 else { return }
        Subprocess.stop(pid, signal: SIGTERM)
        pid = 0
    }

    /// The gateway's own exposition (`GET /metrics`): every pushed group, with `job` and
    /// `instance` labels, and its `push_time_seconds`.
    func metrics() throws -> String {
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        URLSession(configuration: .ephemeral).dataTask(with: URL(string: url + "/metrics")!) { data, response, error in
            box.value = (data, (response as? HTTPURLResponse)?.statusCode, error)
            done.signal()
        }.resume()
        done.wait()
        guard let (data, status, error) = box.value, error == nil, status == 200, let data else {
            throw PushgatewayError.readFailed("\(String(describing: box.value?.2)) status \(String(describing: box.value?.1))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Written once by the completion handler before the semaphore is signalled.
    private final class Box: @unchecked Sendable {
        var value: (Data?, Int?, (any Error)?)?
    }

    /// True once the gateway accepts connections; false when it exited (port taken).
    private func waitUntilListening(port: Int) throws -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if Subprocess.reap(pid) != nil {
                pid = 0
                return false
            }
            if PgBouncer.acceptsConnections(port: port) { return true }
            usleep(2000)
        }
        return false
    }
}

enum PushgatewayError: Error, CustomStringConvertible {
    case notListening(Int, String)
    case readFailed(String)

    var description: String {
        switch self {
        case .notListening(let port, let log): "prometheus-pushgateway does not listen on 127.0.0.1:\(port); its log:\n\(log)"
        case .readFailed(let reason): "could not read the Pushgateway's /metrics: \(reason)"
        }
    }
}
