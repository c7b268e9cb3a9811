import Foundation
import Logging
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import ZoneFiles

/// A scheduled run inside the test process, so the test can act *between two batches*
/// of a run in progress — the only way to place a concurrent write or a second run at
/// an exact moment without timing. Everything else is as in production: the job's role,
/// real PostgreSQL, a notifications file.
struct InProcessRun {
    let database: JobDatabase
    let asOf: Instant
    var batchSize = 10

    /// Runs to the end, calling `betweenBatches(n)` before batch n (1-based) starts.
    func run(betweenBatches: @escaping @Sendable (Int) -> Void) throws -> RunSummary {
        let conninfo = database.jobConninfo
        let notifications = FileManager.default.temporaryDirectory
            .appendingPathComponent("plan-regen-notifications-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: notifications) }
        let runner = NightlyRunner(
            stores: .postgres(connect: { try PostgresConnection(conninfo: conninfo) }),
            zones: try ZoneDatabase.loadSystem(),
            logger: Logger(label: "reliability-test") { _ in SwiftLogNoOpLogHandler() },
            notifications: try NotificationSink.appending(toFile: notifications.path),
            report: .standardOutput())
        let counter = BatchCounter()
        var options = RunOptions(asOf: asOf)
        options.batchSize = batchSize
        options.stopRequested = {
            betweenBatches(counter.next())
            return false
        }
        return try runner.run(options)
    }
}

/// Counts calls from whichever thread the runner asks on.
final class BatchCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        calls += 1
        return calls
    }
}

/// Collects an error thrown inside a between-batches hook (which cannot throw).
final class HookErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []

    func capture(_ body: () throws -> Void) {
        do { try body() } catch {
            lock.lock()
            errors.append(error)
            lock.unlock()
        }
    }

    func check() throws {
        lock.lock()
        defer { lock.unlock() }
        if let first = errors.first { throw first }
    }
}

extension RunStores {
    /// A run's stores on connections made by `connect`, as `plan-regen run` makes them.
    static func postgres(connect: @escaping @Sendable () throws -> PostgresConnection) -> RunStores {
        RunStores(main: { try PlanStore.open(connect(), for: $0) }, worker: { PlanStore(connection: try connect()) },
                  delivery: { PlanStore(connection: try connect()) })
    }
}
