import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The reference webhook receiver (deploy/examples/webhook_receiver.py, with PyPI's
/// standardwebhooks in a virtual environment) run by `Tests/Receiver/faulty_receiver.py`
/// on 127.0.0.1 on a private port, plain or with TLS, with a scripted fault schedule:
/// request N may get a 500, a 503, a 429 with Retry-After, a reset in the middle of its
/// body, or a late answer; with `maximumLines`, a request of more lines is answered 413. Stopped on `stop()`, on `deinit`, and by an `ExitWatchdog`
/// should the test process end first.
///
/// ```swift
/// let receiver = try WebhookReceiver(secret: secret, faults: [2: "500", 3: "429:1"])
/// … plan-regen run --notifications receiver.url …
/// let stored = try receiver.storedIDs()
/// ```
final class WebhookReceiver {
    let directory: URL
    let secret: String
    private(set) var port = 0
    private let tls: TLSTests.Certificates?
    private var pid: pid_t = 0
    private var watchdog: ExitWatchdog?

    /// What the receiver counted so far (stats.json).
    struct Stats: Decodable, Equatable {
        var requests: Int
        /// Lines it already had (a retry after a lost answer, a rerun's lines).
        var duplicates: Int
        /// Distinct notification ids stored.
        var stored: Int
        /// Requests answered 401 (no valid signature).
        var refused: Int
    }

    /// A fresh `whsec_` secret of 24 random bytes.
    static func makeSecret() -> String {
        "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    init(secret: String, faults: [Int: String] = [:], tls: TLSTests.Certificates? = nil, verify: Bool = true,
         maximumLines: Int? = nil, in directory: URL? = nil) throws {
        let python = try RequiredComponent.standardWebhooks.path()
        self.secret = secret
        self.tls = tls
        self.directory = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("webhook-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: repositoryPath("Tests/Receiver/faulty_receiver.py")).path
        let log = self.directory.appendingPathComponent("receiver.log").path
        for attempt in 1...5 {
            port = try PgBouncer.freePort()
            var config: [String: Any] = ["port": port, "secret": secret, "verify": verify,
                                         "faults": Dictionary(uniqueKeysWithValues: faults.map { (String($0.key), $0.value) })]
            if let tls { config["cert"] = tls.serverCertificate; config["key"] = tls.serverKey }
            if let maximumLines { config["max_lines"] = maximumLines }
            try JSONSerialization.data(withJSONObject: config).write(to: self.directory.appendingPathComponent("config.json"))
            pid = try Subprocess.spawn([python, script, self.directory.path], stdout: log, stderr: log)
            watchdog = try ExitWatchdog(["/bin/kill", "-KILL", String(pid)])
            if try waitUntilListening() { return }
            stop()
            guard attempt < 5 else {
                throw WebhookReceiverError.notListening(port, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What `--notifications` takes: https://localhost:PORT/… with TLS (the certificate
    /// names localhost), else http://127.0.0.1:PORT/….
    var url: String { tls == nil ? "http://127.0.0.1:\(port)/plan-regen" : "https://localhost:\(port)/plan-regen" }

    /// Stops the receiver at once (SIGKILL: a crash) and waits for it. Safe to repeat.
    func stop() {
        watchdog?.cancel()
        watchdog = nil
        guard pid != 0 else { return }
        Subprocess.stop(pid, signal: SIGKILL)
        pid = 0
    }

    func stats() throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: Data(contentsOf: directory.appendingPathComponent("stats.json")))
    }

    /// The stored lines' notification ids (each once: the receiver de-duplicates).
    func storedIDs() throws -> [String] {
        let url = directory.appendingPathComponent("lines.jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try notificationIDs(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init))
    }

    private func waitUntilListening() throws -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if Subprocess.reap(pid) != nil {
                pid = 0
                return false
            }
            if PgBouncer.acceptsConnections(port: port),
               FileManager.default.fileExists(atPath: directory.appendingPathComponent("stats.json").path) {
                return true
            }
            usleep(5000)
        }
        return false
    }
}

enum WebhookReceiverError: Error, CustomStringConvertible {
    case notListening(Int, String)

    var description: String {
        switch self {
        case .notListening(let port, let log): "the webhook receiver does not listen on 127.0.0.1:\(port); its log:\n\(log)"
        }
    }
}
