import Foundation
import PlanRules
#if canImport(Glibc)
import Glibc
#endif

/// A first run delivering by webhook to the reference receiver on this machine
/// (deploy/examples/webhook_receiver.py, `--no-verify`: it still parses every line for its
/// id, de-duplicates and fsyncs before answering), against the same run appending to a
/// file. The receiver shares the cores: its CPU time is reported apart.
enum WebhookComparison {
    struct Result {
        var file: [ChildRun]
        var webhook: [ChildRun]
        var receiverCPUSeconds: Double
    }

    /// `warmUp`: one unmeasured run to a file first (a database just created has no WAL
    /// files to recycle yet, which only its first run would pay).
    static func measure(database: BenchDatabase, users: Int, job: JobBinary, repeats: Int, warmUp: Bool,
                        scratch: String, receiverPython: String, runArgs: ([String]) -> [String]) throws -> Result {
        let file = scratch + "/notifications.jsonl"
        var fileRuns: [ChildRun] = []
        var webhookRuns: [ChildRun] = []
        var receiverCPU = 0.0
        // A secret for the request's signature (the receiver skips checking it here).
        setenv("PLAN_REGEN_WEBHOOK_SECRET", "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(), 1)
        if warmUp {
            try database.resetJobTables()
            log("\(users) users: first run to a file (warm-up, not measured)")
            _ = logged(try job.run([runArgs(["--notifications", file])]))
            try? FileManager.default.removeItem(atPath: file)
        }
        for attempt in 1...repeats {
            try database.resetJobTables()
            try? FileManager.default.removeItem(atPath: file)
            log("\(users) users: first run \(attempt)/\(repeats) to a file")
            fileRuns += logged(try job.run([runArgs(["--notifications", file])]))
            try? FileManager.default.removeItem(atPath: file)

            try database.resetJobTables()
            let receiver = try Receiver(python: receiverPython, scratch: scratch)
            defer { receiver.stop() }
            log("\(users) users: first run \(attempt)/\(repeats) to a webhook on this machine")
            webhookRuns += logged(try job.run([runArgs(["--notifications", receiver.url])]))
            receiverCPU = receiver.cpuSeconds()
        }
        return Result(file: fileRuns, webhook: webhookRuns, receiverCPUSeconds: receiverCPU)
    }

    /// The reference receiver on 127.0.0.1, storing into the scratch folder.
    final class Receiver {
        let pid: pid_t
        let port: Int
        let store: String

        init(python: String, scratch: String) throws {
            port = Int.random(in: 20_000..<30_000)
            store = scratch + "/received-\(port).jsonl"
            let argv = [python, "deploy/examples/webhook_receiver.py", "--port", "\(port)", "--store", store, "--no-verify"]
            let cArguments = argv.map { strdup($0) } + [nil]
            defer { cArguments.forEach { free($0) } }
            var spawned: pid_t = 0
            guard posix_spawn(&spawned, python, nil, nil, cArguments, environ) == 0 else {
                throw BenchError("cannot start the webhook receiver with \(python) (make it with python3 -m venv and "
                    + "pip install standardwebhooks, or pass --receiver-python)")
            }
            pid = spawned
            let deadline = Date().addingTimeInterval(20)
            while !Self.listening(port: port) {
                guard Date() < deadline else { throw BenchError("the webhook receiver does not listen on \(port)") }
                usleep(20_000)
            }
        }

        var url: String { "http://127.0.0.1:\(port)/plan-regen" }

        /// User + system seconds of the receiver so far.
        func cpuSeconds() -> Double { processCPUSeconds(pid: pid) }

        func stop() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            try? FileManager.default.removeItem(atPath: store)
        }

        static func listening(port: Int) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }
}
