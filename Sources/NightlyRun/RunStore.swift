import PlanRules
import PlanStore

// What the run pipeline needs from the database, one protocol per role, each function
// asking only for those it uses. `PlanStore` implements them all; a test may drive the
// pipeline through another store. A store serves one thread at a time, as a connection.

/// The connection under every role.
public protocol StoreConnection: AnyObject {
    /// Round trips made so far, and whether the connection still works.
    var roundTrips: Int { get }
    var isUsable: Bool { get }
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T
}

/// The run's record (`plan_runs`, RunLog.swift) and the rules versions' rollouts runs
/// record (RulesRollouts.swift).
public protocol RunLogStore: StoreConnection {
    /// The database's clock when the store was opened, else asked now.
    func databaseNow() throws -> Instant
    func startRun(_ record: RunRecord) throws -> Int64
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, partitionsHeldByOthers: Int,
                   durationMs: Int64, error: String?, newestRulesVersionSeen: String?) throws
    func runningRuns(except runID: Int64) throws -> [(runID: Int64, processKey: String?)]
    func markAbandoned(_ runIDs: [Int64], by runID: Int64) throws
    func rulesRollouts() throws -> [RulesRolloutRecord]
    func recordRolloutStart(of version: String, at instant: Instant, runID: Int64) throws -> Instant
    func forgetRollouts(of versions: [String]) throws
}

/// Claims on user partitions (PartitionClaims.swift).
public protocol ClaimStore: StoreConnection {
    func partitionHolders(_ partitions: [Int], except runID: Int64) throws -> [PartitionHolder]
    func claimPartitions(_ wanted: [Int], runID: Int64, ttl: Duration, takingOverFrom deadRuns: [Int64])
        throws -> (claimed: [Int], takenFrom: [Int64])
    func renewClaims(_ partitions: [Int], runID: Int64, ttl: Duration) throws
    func releaseClaims(runID: Int64) throws
    func fenceClaims(_ partitions: [Int], runID: Int64) throws
}

/// The candidates, where their selection starts and where it ends (DueUsers.swift).
public protocol CandidateStore: StoreConnection {
    func selectionStart(of partitions: [Int]) throws -> SelectionStart
    func everyUserByIDRange(asOf: Instant, partitions: [Int]) throws -> CandidateIDs?
    func everyUserByID(asOf: Instant, partitions: [Int]) throws -> CandidateIDs
    func changedOrDueUsers(asOf: Instant, partitions: [Int], changedSince: Instant?, lateRows: [LateRowSlice],
                           otherRulesVersions: [String]) throws -> CandidateIDs
    func advanceWatermarks(of partitions: [Int], to watermark: Instant) throws
    func advanceSweep(of partitions: [Int], to position: SweepPosition) throws
    func dueUsersUnder(_ versions: [String], asOf: Instant, partitions: [Int]) throws -> Int
}

/// A batch's read and writes (UserLoading.swift, BatchWrite.swift).
public protocol BatchStore: StoreConnection {
    func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard?) throws -> [LoadedUser]
    func missingHistoryPartitions(for dates: [LocalDate]) -> [LocalDate]
    func ensureHistoryPartitions(for dates: [LocalDate]) throws
    func write(_ batch: BatchWrite, runID: Int64, generatedAt: Instant) throws -> Int64?
}

/// Emitting the outbox (Outbox.swift).
public protocol OutboxStore: StoreConnection {
    func pendingNotifications(partitions: [Int], limit: Int) throws -> [PendingNotification]
    func markEmitted(batch: Int64) throws
    func markEmitted(_ notificationIDs: [String], runID: Int64) throws
}

/// Every role of a run on one connection: the run's own, a worker's.
public typealias RunStore = RunLogStore & ClaimStore & CandidateStore & BatchStore & OutboxStore

/// What delivering the outbox needs from the database (Delivery.swift). Each process
/// delivering holds its own connection for it (never a worker's).
public protocol DeliveryStore: AnyObject {
    func pendingBatches() throws -> [PendingBatch]
    func claimDelivery(of batchID: Int64, claim: DeliveryClaim, takingOverFrom goneClaimants: [String]) throws -> Bool
    func renewDeliveryClaims(_ claim: DeliveryClaim) throws
    func releaseDeliveryClaims(of claimant: String) throws
    func lines(ofBatch batchID: Int64) throws -> [DeliveryLine]
    func users(ofBatches batchIDs: [Int64]) throws -> [Int64]
    func markDelivered(batch batchID: Int64) throws
    func recordRefusal(of batchID: Int64, refusal: String) throws
}

extension PlanStore: RunLogStore, ClaimStore, CandidateStore, BatchStore, OutboxStore, DeliveryStore {}

/// How a run gets its stores: the main one, checked for the access the run needs, and one
/// per worker or selection share (the database already checked). Made by the CLI.
public struct RunStores: Sendable {
    public var main: @Sendable (_ access: PlanStore.Access) throws -> any RunStore
    public var worker: @Sendable () throws -> any RunStore
    /// The delivery thread's own connection (a webhook); nil where there is none.
    public var delivery: (@Sendable () throws -> any DeliveryStore)?

    public init(main: @escaping @Sendable (_ access: PlanStore.Access) throws -> any RunStore,
                worker: @escaping @Sendable () throws -> any RunStore,
                delivery: (@Sendable () throws -> any DeliveryStore)? = nil) {
        self.main = main
        self.worker = worker
        self.delivery = delivery
    }
}
