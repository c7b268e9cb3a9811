import Foundation
import PlanRules
import Postgres
import Testing
import TestSupport

/// Delivery by webhook against the reference receiver (deploy/examples/webhook_receiver.py,
/// PyPI's standardwebhooks) on a private port, plain and with TLS from a test CA, through a
/// scripted fault schedule; kill -9 around a POST; a receiver down for a whole run, then
/// drained by two `deliver` at once; a wrong secret refused and set aside; and the file
/// destination fsync'ed before its batch is marked.
@Suite struct WebhookDeliveryTests {
    static let asOf = "2026-03-01T00:00:00Z"

    /// Every notification id of the outbox, and the lines still pending.
    static func outbox(_ db: JobDatabase) throws -> (ids: Set<String>, pending: Int) {
        let tables = PlanTables(connection: try db.owner())
        return (Set(try tables.outbox().keys),
                try tables.count("SELECT count(*) FROM notification_outbox_lines WHERE emitted_at IS NULL"))
    }

    /// Nothing secret in the job's output: neither the secret nor its key's base64.
    static func expectNoSecret(_ output: String, _ secrets: [String], _ what: String) {
        for secret in secrets {
            #expect(!output.contains(secret) && !output.contains(secret.dropFirst("whsec_".count)),
                    "\(what) printed a secret")
        }
    }

    // Each batch of 2,000 users is two requests of at most 1,000 lines. The faults, by
    // request number: 500, 429 (Retry-After 1), 503 twice (restarting), a reset in the
    // middle of the body, and an answer 3 s late (the timeout is 1.5 s) after storing.
    @Test(.requires(.standardWebhooks, .openssl))
    func twentyThousandUsersFirstRunThroughTheFaultsLosesNoNotification() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 20_000, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let tls = try TLSTests.makeCertificates(in: folder.appendingPathComponent("tls"))
            let secret = WebhookReceiver.makeSecret()
            let receiver = try WebhookReceiver(
                secret: secret, faults: [2: "500", 4: "429:1", 6: "503", 7: "503", 9: "reset", 12: "slow:3"], tls: tls)
            defer { receiver.stop() }
            let started = Date()
            let run = try db.run(["--as-of", Self.asOf, "--notifications", receiver.url,
                                  "--webhook-ca-file", tls.caCertificate, "--webhook-timeout", "1.5",
                                  "--delivery-time-limit", "60", "--log-level", "debug"],
                                 environment: ["PLAN_REGEN_WEBHOOK_SECRET": secret])
            let seconds = Date().timeIntervalSince(started)
            #expect(run.status == 0, "\(run.stderr)")
            let (ids, pending) = try Self.outbox(db)
            #expect(ids.count > 18_000)
            #expect(pending == 0)
            let stored = Set(try receiver.storedIDs())
            #expect(stored == ids, "not received: \(ids.subtracting(stored).sorted().prefix(5))")
            let stats = try receiver.stats()
            // Lines come twice only from a request answered after the timeout (stored, then
            // sent again): the scripted late answer, and any a loaded host makes late. The
            // reset's body never got through; 500, 429 and 503 store nothing.
            let timeouts = run.stderrLines.filter { $0.contains("failure_class=timeout") }.count
            #expect(timeouts >= 1 && stats.duplicates <= 1000 * timeouts, "\(stats), \(timeouts) timeouts")
            #expect(stats.refused == 0)
            for failure in ["http_5xx", "http_429", "connection", "timeout"] {
                #expect(run.stderr.contains(failure), "no retried \(failure) in the log")
            }
            Self.expectNoSecret(run.stderr + run.stdout, [secret], "the run")
            #expect(run.stdout.isEmpty, "a webhook run prints no notification line")
            print("WebhookDeliveryTests: \(ids.count) notifications over TLS through 6 faults in \(Int(seconds)) s: "
                  + "\(stats.requests) requests, \(stats.duplicates) duplicate lines after \(timeouts) timeouts")
        }
    }

    /// kill -9 before a POST, in the middle of one, and after a 2xx before the marking:
    /// each next run delivers what the killed one left, none lost.
    @Test(.requires(.standardWebhooks))
    func runsKilledAroundAPostLeaveNothingUndelivered() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 4_000, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let secret = WebhookReceiver.makeSecret()
            let receiver = try WebhookReceiver(secret: secret)
            defer { receiver.stop() }
            let arguments = ["--as-of", Self.asOf, "--batch-size", "500", "--notifications", receiver.url]
            let environment = ["PLAN_REGEN_WEBHOOK_SECRET": secret]
            for fault in ["before-post:2", "mid-post:3", "after-post:2"] {
                let killed = try db.run(arguments, environment: environment.merging(["PLAN_REGEN_FAULT": fault]) { $1 })
                #expect(killed.killed && killed.status == SIGKILL, "\(fault) not reached: \(killed.stderr)")
                let tables = PlanTables(connection: try db.owner())
                try waitUntil("the killed run's backends to end") {
                    try tables.count("SELECT count(*) FROM pg_stat_activity WHERE usename = \(bind: db.jobRole)") == 0
                }
                #expect(try tables.consistency().isConsistent)
            }
            let last = try db.run(arguments, environment: environment)
            #expect(last.status == 0, "\(last.stderr)")
            let (ids, pending) = try Self.outbox(db)
            #expect(pending == 0)
            let stored = Set(try receiver.storedIDs())
            #expect(!ids.isEmpty && stored == ids, "not received: \(ids.subtracting(stored).sorted().prefix(5))")
            print("WebhookDeliveryTests: 3 kills around a POST, \(ids.count) notifications all received, "
                  + "\(try receiver.stats().duplicates) duplicate lines")
        }
    }

    /// The receiver down for a whole run: every plan committed, exit 6, the backlog in the
    /// metrics; then two `deliver` at once drain it, each batch posted once.
    @Test(.requires(.standardWebhooks, .promtool))
    func aReceiverDownForARunLeavesThePlansAndTwoDeliversDrainTheBacklog() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 3_000, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let secret = WebhookReceiver.makeSecret()
            let secretFile = folder.appendingPathComponent("webhook-secret").path
            try secret.write(toFile: secretFile, atomically: true, encoding: .utf8)
            let port = try PgBouncer.freePort()  // nothing listens there yet
            // A password in the URL: never printed.
            let url = "http://plan-regen:Pa55-w0rd@127.0.0.1:\(port)/plan-regen"
            let metrics = folder.appendingPathComponent("run.prom").path
            let down = try db.run(["--as-of", Self.asOf, "--batch-size", "500", "--notifications", url,
                                   "--webhook-secret-file", secretFile, "--delivery-time-limit", "1",
                                   "--metrics-file", metrics])
            #expect(down.status == 6, "\(down.stderr)")
            let tables = PlanTables(connection: try db.owner())
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 3_000)
            #expect(try tables.count("SELECT count(*) FROM plan_runs WHERE status = 'delivery_pending'") == 1)
            let (ids, pending) = try Self.outbox(db)
            #expect(pending == ids.count && pending > 0)
            let runMetrics = try String(contentsOfFile: metrics, encoding: .utf8)
            #expect(runMetrics.contains("plan_regen_outbox_pending \(pending)\n"), "\(runMetrics)")
            #expect(runMetrics.contains("plan_regen_last_delivery_lines{outcome=\"pending\"} \(pending)\n"))
            #expect(!runMetrics.contains("plan_regen_outbox_oldest_pending_age_seconds 0\n"))
            #expect(runMetrics.contains("plan_regen_last_delivery_failures{class=\"connection\"} "))
            try ObservabilityTests.expectPromtoolAccepts(metrics: runMetrics)

            let receiver = try WebhookReceiver(secret: secret)
            defer { receiver.stop() }
            let drain = ["deliver", "--database-url", db.jobConninfo, "--notifications",
                         url.replacingOccurrences(of: "\(port)", with: "\(receiver.port)"),
                         "--webhook-secret-file", secretFile]
            let first = try JobProcess(drain + ["--metrics-file", folder.appendingPathComponent("a.prom").path])
            let second = try JobProcess(drain + ["--metrics-file", folder.appendingPathComponent("b.prom").path])
            let results = [try first.waitForExit(), try second.waitForExit()]
            for result in results {
                #expect(result.status == 0, "\(result.stderr)")
                Self.expectNoSecret(result.stderr, [secret], "deliver")
                #expect(!result.stderr.contains("Pa55-w0rd"), "a URL's password printed")
            }
            #expect(!down.stderr.contains("Pa55-w0rd") && down.stderr.contains("plan-regen:***@127.0.0.1"))
            Self.expectNoSecret(down.stderr, [secret], "the run")
            #expect(try Self.outbox(db).pending == 0)
            #expect(Set(try receiver.storedIDs()) == ids)
            let stats = try receiver.stats()
            #expect(stats.duplicates == 0, "a batch was posted twice: \(stats)")
            let batches = try tables.count("SELECT count(*) FROM notification_batches")
            #expect(stats.requests == batches, "one request per batch of 500 lines")
            let backlog = try [folder.appendingPathComponent("a.prom"), folder.appendingPathComponent("b.prom")]
                .map { try String(contentsOf: $0, encoding: .utf8) }
            #expect(backlog.contains { $0.contains("plan_regen_outbox_pending 0\n") })
            for metrics in backlog { try ObservabilityTests.expectPromtoolAccepts(metrics: metrics) }
        }
    }

    /// A wrong secret: every request answered 401, none retried; the batches stay pending,
    /// refused; one is set aside (a dead letter, still queryable); the right secret then
    /// delivers the others and never the dead letter.
    @Test(.requires(.standardWebhooks))
    func aWrongSecretIsRefusedWithoutRetryAndARefusedBatchCanBeSetAside() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 1_200, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let secret = WebhookReceiver.makeSecret()
            let wrong = WebhookReceiver.makeSecret()
            let receiver = try WebhookReceiver(secret: secret)
            defer { receiver.stop() }
            let arguments = ["--as-of", Self.asOf, "--batch-size", "400", "--notifications", receiver.url]
            let refused = try db.run(arguments, environment: ["PLAN_REGEN_WEBHOOK_SECRET": wrong])
            #expect(refused.status == 6, "\(refused.stderr)")
            let tables = PlanTables(connection: try db.owner())
            let batches = try tables.count("SELECT count(*) FROM notification_batches")
            #expect(try receiver.stats().requests == batches, "a 401 is not retried")
            #expect(try receiver.stats().refused == batches)
            #expect(refused.stderr.contains("HTTP 401: invalid signature"), "\(refused.stderr)")
            Self.expectNoSecret(refused.stderr, [wrong, secret], "the run")

            let list = try JobProcess.run(["deliver", "--database-url", db.jobConninfo, "--list-refused"])
            #expect(list.status == 0 && list.stdoutLines.count == batches + 1, "\(list.stdout)")
            let first = try tables.count("SELECT min(batch_id)::int FROM notification_batches")
            let aside = try JobProcess.run(["deliver", "--database-url", db.jobConninfo, "--set-aside", "\(first)"])
            #expect(aside.status == 0, "\(aside.stderr)")
            let deadLetters = try tables.count("SELECT count(*) FROM notification_dead_letters WHERE refusal LIKE 'HTTP 401%'")
            #expect(deadLetters > 0)

            let delivered = try JobProcess.run(["deliver", "--database-url", db.jobConninfo, "--notifications", receiver.url],
                                              environment: ["PLAN_REGEN_WEBHOOK_SECRET": "\(wrong) \(secret)"])
            #expect(delivered.status == 0, "two secrets during a rotation: \(delivered.stderr)")
            let stored = try receiver.storedIDs()
            #expect(stored.count == (try Self.outbox(db).ids.count) - deadLetters)
            #expect(try tables.count("SELECT count(*) FROM notification_outbox_lines WHERE emitted_at IS NULL") == deadLetters)
        }
    }

    /// A receiver whose body limit is below a request's 400 lines answers 413: the batch is
    /// sent again in halves (200, then 100 lines a request), and every line arrives.
    @Test(.requires(.standardWebhooks))
    func aRequestRefusedAsTooLargeIsSentInHalves() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 1_200, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let secret = WebhookReceiver.makeSecret()
            let receiver = try WebhookReceiver(secret: secret, maximumLines: 150)
            defer { receiver.stop() }
            let run = try db.run(["--as-of", Self.asOf, "--batch-size", "400", "--notifications", receiver.url],
                                 environment: ["PLAN_REGEN_WEBHOOK_SECRET": secret])
            #expect(run.status == 0, "\(run.stderr)")
            let (ids, pending) = try Self.outbox(db)
            #expect(pending == 0)
            #expect(Set(try receiver.storedIDs()) == ids)
            // Batches of 302 to 600 lines: refused whole and in halves, then sent in quarters.
            let tables = PlanTables(connection: try db.owner())
            let perBatch = "SELECT count(*) AS n FROM notification_outbox GROUP BY batch_id"
            #expect(try tables.count("SELECT count(*) FROM (\(unescaped: perBatch)) b WHERE n NOT BETWEEN 302 AND 600") == 0)
            let batches = try tables.count("SELECT count(*) FROM notification_batches")
            let quarters = try tables.count("SELECT sum(ceil(n::numeric / (n / 2 / 2)))::int FROM (\(unescaped: perBatch)) b")
            let halvings = run.stderrLines.filter { $0.contains("refused a request as too large") }.count
            #expect(halvings == 2 * batches, "\(run.stderr)")
            #expect(try receiver.stats().requests == halvings + quarters)
        }
    }

    /// Bad input ends with exit 64 before anything is planned or written.
    @Test func badWebhookSettingsExit64BeforePlanning() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 10, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let cases: [([String], [String: String])] = [
                (["--notifications", "ftp://push.example/x"], ["PLAN_REGEN_WEBHOOK_SECRET": WebhookReceiver.makeSecret()]),
                (["--notifications", "https://"], ["PLAN_REGEN_WEBHOOK_SECRET": WebhookReceiver.makeSecret()]),
                (["--notifications", "https://push.example/x"], [:]),
                (["--notifications", "https://push.example/x"], ["PLAN_REGEN_WEBHOOK_SECRET": "not-a-secret"]),
                (["--notifications", "https://push.example/x", "--webhook-secret-file", "/nonexistent/secret"], [:]),
                (["--notifications", "https://push.example/x", "--webhook-ca-file", "/nonexistent/ca.pem"],
                 ["PLAN_REGEN_WEBHOOK_SECRET": WebhookReceiver.makeSecret()]),
            ]
            for (arguments, environment) in cases {
                let result = try db.run(["--as-of", Self.asOf] + arguments, environment: environment)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("not-a-secret"))
            }
            #expect(try PlanTables(connection: try db.owner()).count("SELECT count(*) FROM plan_runs") == 0)
        }
    }

    /// The file destination: each batch's lines are fsync'ed (and the directory of the file
    /// the run created) before the UPDATE that marks the batch emitted leaves for the server.
    @Test(.requires(.strace))
    func theNotificationsFileIsSyncedBeforeItsBatchIsMarked() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 900, writtenBefore: Instant(rfc3339: Self.asOf)!)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("notifications.jsonl").path
            let trace = folder.appendingPathComponent("strace.txt").path
            let result = try JobProcess.run(
                ["-f", "-y", "-s", "2000", "-e", "trace=write,fsync,fdatasync,sendto", "-o", trace,
                 try JobProcess.binary().path, "run", "--database-url", db.jobConninfo, "--as-of", Self.asOf,
                 "--batch-size", "300", "--workers", "1", "--notifications", file],
                binary: URL(fileURLWithPath: try RequiredComponent.strace.path()))
            #expect(result.status == 0, "\(result.stderr)")
            var lastWrite: Int?
            var lastSync: Int?
            var marks = 0
            var directorySynced = false
            for (index, line) in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").enumerated() {
                if line.contains("write(") && line.contains("<\(file)>") { lastWrite = index }
                if line.contains("sync(") && line.contains("<\(file)>") { lastSync = index }
                if line.contains("fsync(") && line.contains("<\(folder.path)>") { directorySynced = true }
                if line.contains("sendto(") && line.contains("UPDATE notification_batches SET emitted_at") {
                    marks += 1
                    #expect(lastWrite != nil && lastSync.map { $0 > lastWrite! } == true,
                            "batch marked before its lines were fsync'ed (trace line \(index))")
                }
            }
            #expect(marks >= 3, "one marking per batch of 300")
            #expect(directorySynced, "the directory of the created file is synced")
        }
    }
}
