import Foundation
import LineOutput
import Logging
@testable import NightlyRun
import PlanRules
@testable import PlanStore
import Synchronization
import Testing

/// The pipeline's decisions driven through the `RunStore` seam, without a database: what
/// a run does when the store fails under it is easiest to stage here.
@Suite struct PipelineWithoutDatabaseTests {
    static let asOf = Instant(rfc3339: "2026-05-01T00:30:00Z")!

    /// A run whose claim is lost at its third batch (another run took its partitions
    /// over) stops there: the two batches before it stay written and emitted, the run is
    /// recorded failed, its claims released, and the error says what happened.
    @Test func aRunThatLosesItsClaimStopsAndRecordsItsFailure() throws {
        let store = InMemoryRunStore(users: 1...10, loseClaimAtBatch: 3)
        let lines = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: lines) }
        let runner = NightlyRunner(
            stores: RunStores(main: { _ in store }, worker: { store }), zones: try ZoneDatabase.loadSystem(),
            logger: Logger(label: "pipeline-tests") { _ in SwiftLogNoOpLogHandler() },
            notifications: try NotificationSink.appending(toFile: lines), report: try LineWriter.appending(toFile: "/dev/null"))
        var options = RunOptions(asOf: Self.asOf)
        options.batchSize = 2
        #expect(throws: StoreError.self) { try runner.run(options) }
        let recorded = store.state.withLock { $0 }
        #expect(recorded.writtenBatches == 2)
        #expect(recorded.emittedBatches == 2)
        #expect(recorded.finished == .failed)
        #expect(recorded.released)
        let emitted = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n")
        #expect(emitted.count == 4, "the two written batches' notifications, and no more")
    }
}

/// Users 1…n, all new, in a store that forgets nothing and loses the run's claim at one
/// batch's fence.
final class InMemoryRunStore: RunStore, @unchecked Sendable {
    struct Recorded {
        var batches = 0
        var writtenBatches = 0
        var emittedBatches = 0
        var finished: RunStatus?
        var released = false
    }

    let users: ClosedRange<Int64>
    let loseClaimAtBatch: Int
    let state = Mutex(Recorded())

    init(users: ClosedRange<Int64>, loseClaimAtBatch: Int) {
        self.users = users
        self.loseClaimAtBatch = loseClaimAtBatch
    }

    var roundTrips: Int { 0 }
    var isUsable: Bool { true }
    func databaseNow() throws -> Instant { PipelineWithoutDatabaseTests.asOf }
    func inTransaction<T>(_ body: () throws -> T) throws -> T { try body() }
    func startRun(_ record: RunRecord) throws -> Int64 { 1 }
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, partitionsHeldByOthers: Int,
                   durationMs: Int64, error: String?, newestRulesVersionSeen: String?) throws {
        state.withLock { $0.finished = status }
    }
    func runningRuns(except runID: Int64) throws -> [(runID: Int64, processKey: String?)] { [] }
    func markAbandoned(_ runIDs: [Int64], by runID: Int64) throws {}
    func partitionHolders(_ partitions: [Int], except runID: Int64) throws -> [PartitionHolder] { [] }
    func claimPartitions(_ wanted: [Int], runID: Int64, ttl: Duration, takingOverFrom deadRuns: [Int64])
        throws -> (claimed: [Int], takenFrom: [Int64]) { (wanted, []) }
    func renewClaims(_ partitions: [Int], runID: Int64, ttl: Duration) throws {}
    func releaseClaims(runID: Int64) throws { state.withLock { $0.released = true } }
    func fenceClaims(_ partitions: [Int], runID: Int64) throws {}
    func selectionStart(of partitions: [Int]) throws -> SelectionStart {
        SelectionStart(oldestWatermark: nil)
    }
    func advanceWatermarks(of partitions: [Int], to watermark: Instant) throws {}
    func advanceSweep(of partitions: [Int], to position: SweepPosition) throws {}
    func everyUserByID(asOf: Instant, partitions: [Int]) throws -> CandidateIDs {
        CandidateIDs(userIDs: UserIDSet(users.filter { partitions.contains(UserPartitions.partition(of: $0)) }),
                     newestUpdatedAt: nil)
    }
    func changedOrDueUsers(asOf: Instant, partitions: [Int], changedSince: Instant?, lateRows: [LateRowSlice],
                           otherRulesVersions: [String]) throws -> CandidateIDs {
        try everyUserByID(asOf: asOf, partitions: partitions)
    }
    func everyUserByIDRange(asOf: Instant, partitions: [Int]) throws -> CandidateIDs? { nil }
    func rulesRollouts() throws -> [RulesRolloutRecord] { [] }
    func recordRolloutStart(of version: String, at instant: Instant, runID: Int64) throws -> Instant { instant }
    func forgetRollouts(of versions: [String]) throws {}
    func dueUsersUnder(_ versions: [String], asOf: Instant, partitions: [Int]) throws -> Int { 0 }
    func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard?) throws -> [LoadedUser] {
        let batch = state.withLock { $0.batches += 1; return $0.batches }
        if batch == loseClaimAtBatch, case .claimedBy(let runID, let partitions)? = partitionGuard {
            throw StoreError.claimLost(runID: runID, partitions: partitions)
        }
        return userIDs.map { id in
            LoadedUser(userID: id, row: UserSettingsRow(
                userID: id, dateOfBirth: "1990-01-01", gender: "female", heightCm: "170", currentWeightKg: "70",
                targetWeightKg: "65", primaryGoal: "lose_weight", activityLevel: "moderately_active",
                mealsPerDay: 3, timezone: "Europe/Berlin", onboardingCompleted: true,
                updatedAt: PipelineWithoutDatabaseTests.asOf.adding(seconds: -86_400)),
                state: nil, storedNextCheck: nil, storedRulesVersion: nil)
        }
    }
    func missingHistoryPartitions(for dates: [LocalDate]) -> [LocalDate] { [] }
    func ensureHistoryPartitions(for dates: [LocalDate]) throws {}
    func write(_ batch: BatchWrite, runID: Int64, generatedAt: Instant) throws -> Int64? {
        state.withLock { $0.writtenBatches += 1; return Int64($0.writtenBatches) }
    }
    func pendingNotifications(partitions: [Int], limit: Int) throws -> [PendingNotification] { [] }
    func markEmitted(batch: Int64) throws { state.withLock { $0.emittedBatches += 1 } }
    func markEmitted(_ notificationIDs: [String], runID: Int64) throws {}
}

/// `--shard i/n`: at most one shard per user partition.
@Suite struct ShardTests {
    @Test func aShardCountAboveThePartitionCountIsRefused() {
        #expect(Shard("\(UserPartitions.count - 1)/\(UserPartitions.count)")?.count == UserPartitions.count)
        #expect(Shard("0/\(UserPartitions.count + 1)") == nil)
        #expect(Shard("2/2") == nil && Shard("0/0") == nil)
    }
}
