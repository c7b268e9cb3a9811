import PlanRules
import PlanStore

/// What ops asked of one `plan-regen run`.
public struct RunOptions: Sendable {
    /// The run's instant: now, or `--as-of` (tests, backfills, ops).
    public var asOf: Instant
    /// `--user`: recompute exactly these users now (reason manual_rerun).
    public var manualUsers: [Int64] = []
    /// `--dry-run`: compute and print what would be written; write nothing.
    public var dryRun = false
    /// Users per transaction.
    public var batchSize = 2000
    /// `--workers N`: batches processed at once, each worker on its own connection.
    public var workers = 1
    /// How many connections select the candidates at once when everyone may be due; nil:
    /// one per usable core (`CandidateSelection.choose` says why). Never more than
    /// `workers`.
    public var selectionShares: Int?
    /// `--shard i/N`: this process handles the user partitions of shard i only.
    public var shard: Shard?
    /// How far behind the last watermark a run looks for changed rows, so a write whose
    /// transaction committed after the previous run read is still seen.
    public var changeLookbackSeconds: Int64 = 3600
    /// `--sweep-period`, `--sweep-all`: how the run finds rows older than the watermark.
    public var lateRowSweep = LateRowSweep()
    /// `--rules-at-once`: users whose plan an older rules version made are due at once (an
    /// urgent correction), not at their rollout midnight (plan-rules.md section 2.1).
    public var rulesAtOnce = false
    /// `--rules-rollback`: users whose plan a newer rules version made are due at once, and
    /// the newer versions' rollout starts are forgotten.
    public var rulesRollback = false

    /// How `plan_runs.rules_action` records `rulesAtOnce` and `rulesRollback`.
    public var rulesAction: String? {
        switch (rulesAtOnce, rulesRollback) {
        case (false, false): nil
        case (true, false): "at_once"
        case (false, true): "rollback"
        case (true, true): "both"
        }
    }
    public var binaryVersion = "dev"
    /// `--claim-ttl`: a scheduled run's claim on its partitions lapses this long after its
    /// last sign of progress, so another run can take over from a run that died.
    public var claimTTL: Duration = .seconds(120)
    /// `--overlap-limit`: partitions held by another run for longer than this mean their
    /// users are not being processed: the run ends `held_too_long`, exit 4.
    public var overlapLimit: Duration = .seconds(3600)
    /// How far `asOf` may be ahead of the database's clock in a run that writes; nil: no
    /// check. A run dated ahead writes plans for dates still to come and marks its users
    /// evaluated up to then, so the scheduled runs skip them until the calendar catches
    /// up: `plan-regen run` sets 5 minutes unless `--allow-future`. A dry run is never refused.
    public var asOfLeadLimit: Duration?
    /// Asked between batches; true ends the run after the batch in flight is committed
    /// and emitted (SIGTERM from systemd or Kubernetes).
    public var stopRequested: @Sendable () -> Bool = { false }
    /// Told after each batch is committed and emitted (a terminal's progress line).
    public var progress: @Sendable (RunProgress) -> Void = { _ in }

    /// Every option at its default but the instant.
    public init(asOf: Instant) { self.asOf = asOf }

    /// Every option at its default: where `plan-regen run`'s options start from.
    public static let defaults = RunOptions(asOf: Instant(secondsSinceEpoch: 0))
}

/// `--shard index/count`: one of `count` processes that split the users between them.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]),
              n >= 1, n <= UserPartitions.count, i >= 0, i < n else { return nil }
        index = i
        count = n
    }

    public var description: String { "\(index)/\(count)" }
}
