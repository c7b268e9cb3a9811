import PlanRules
import PlanStore
import Postgres

/// What the run pipeline needs from the database: the seam between `NightlyRunner` and
/// SQL. `PlanStore` is the implementation; a test can hand the runner another one to
/// drive the pipeline's decisions (a claim lost, a failing batch) without a database.
/// Each store is used by one thread at a time, as its connection is.
public protocol RunStore: AnyObject {
    /// Round trips made so far, and whether the connection still works.
    var roundTrips: Int { get }
    var isUsable: Bool { get }
    /// The database's clock when the store was opened, else asked now.
    func databaseNow() throws -> Instant
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T

    // The run's record (`plan_runs`).
    func startRun(_ record: RunRecord) throws -> Int64
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, partitionsHeldByOthers: Int,
                   durationMs: Int64, error: String?, newestRulesVersionSeen: String?) throws
    func runningRuns(except runID: Int64) throws -> [(runID: Int64, processKey: String?)]
    func markAbandoned(_ runIDs: [Int64], by runID: Int64) throws

    // Claims on user partitions (PartitionClaims.swift).
    func partitionHolders(_ partitions: [Int], except runID: Int64) throws -> [PartitionHolder]
    func claimPartitions(_ wanted: [Int], runID: Int64, ttl: Duration, takingOverFrom deadRuns: [Int64])
        throws -> (claimed: [Int], takenFrom: [Int64])
    func renewClaims(_ partitions: [Int], runID: Int64, ttl: Duration) throws
    func releaseClaims(runID: Int64) throws
    func fenceClaims(_ partitions: [Int], runID: Int64) throws

    // Candidates and their batches.
    func selectionStart(of partitions: [Int]) throws -> SelectionStart
    func advanceWatermarks(of partitions: [Int], to watermark: Instant) throws
    func advanceSweep(of partitions: [Int], to position: SweepPosition) throws
    func dueUsers(asOf: Instant, partitions: [Int], changedSince: Instant?, everyoneIsDue: Bool,
                  lateRows: [LateRowSlice], otherRulesVersions: [String]) throws -> DueUserSelection
    func everyUserByIDRange(asOf: Instant, partitions: [Int]) throws -> DueUserSelection?
    func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard?) throws -> [LoadedUser]
    func missingHistoryPartitions(for dates: [LocalDate]) -> [LocalDate]
    func ensureHistoryPartitions(for dates: [LocalDate]) throws
    func write(_ batch: BatchWrite, runID: Int64, generatedAt: Instant) throws -> Int64?

    // Rules versions' rollouts (RulesRollouts.swift).
    func rulesRollouts() throws -> [RulesRolloutRecord]
    func recordRolloutStart(of version: String, at instant: Instant, runID: Int64) throws -> Instant
    func forgetRollouts(of versions: [String]) throws
    func dueUsersUnder(_ versions: [String], asOf: Instant, partitions: [Int]) throws -> Int

    // The outbox.
    func pendingNotifications(partitions: [Int], limit: Int) throws -> [PendingNotification]
    func markEmitted(batch: Int64) throws
    func markEmitted(_ notificationIDs: [String], runID: Int64) throws
}

extension PlanStore: RunStore {
    public var roundTrips: Int { connection.roundTrips }
    public var isUsable: Bool { connection.isUsable }
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.withTransaction { _ in try body() }
    }
}

/// How a run gets its stores: the main one, checked for the access the run needs, and one
/// per worker or selection share (`worker`, the database already checked).
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

    /// Stores on PostgreSQL connections made by `connect`; `warn` hears what opening the
    /// main store found wrong but not fatal (a missing index on user_settings).
    public static func postgres(connect: @escaping @Sendable () throws -> PostgresConnection,
                                timeouts: PlanStore.Timeouts = PlanStore.Timeouts(),
                                warn: @escaping @Sendable (String) -> Void = { _ in }) -> RunStores {
        RunStores(main: { access in
                      let store = try PlanStore.open(connect(), for: access, timeouts: timeouts)
                      if store.userSettingsIndexMissing { warn(UserSettingsIndex.missingWarning) }
                      return store
                  },
                  worker: { PlanStore(connection: try connect(), timeouts: timeouts) },
                  delivery: { PlanStore(connection: try connect(), timeouts: timeouts) })
    }
}
