import PlanRules
import PlanStore

/// The late-row sweep (plan-rules.md section 2, "Late rows"; docs/architecture.md).
///
/// The change watermark finds rows whose `updated_at` is at most `--change-lookback` older
/// than what earlier runs saw. A row that becomes visible with an older `updated_at` (a
/// bulk import or a restore keeping old instants, an offline edit synced hours later, a
/// transaction that commits long after it stamped `now()`) is found by the sweep instead:
/// each scheduled run compares the rows of one slice of the user ids with what the job saw,
/// so that every id is compared once per `period`. A row committed at C is planned by the
/// first run at or after C + period + the time between runs, at the latest.
///
/// The slice follows from the run's instant and the recorded position of each partition,
/// never from a run counter: a run reads the ids the period gives to the time since the
/// last sweep, so a rerun at the same instant reads nothing, a run after an outage reads
/// more (at most every id once), and shards and overlapping runs agree.
public struct LateRowSweep: Sendable, Equatable {
    /// Every user id is compared once per this many seconds.
    public var periodSeconds: Int64
    /// Compare every id in this run (`--sweep-all`: after an import or a restore).
    public var wholeSweep: Bool

    /// The smallest period that keeps a 15-minute run with nothing due under 1 s at ten
    /// million users: each run compares a sixteenth of the ids (docs/performance.md).
    public static let defaultPeriodSeconds: Int64 = 14_400

    public init(periodSeconds: Int64 = Self.defaultPeriodSeconds, wholeSweep: Bool = false) {
        self.periodSeconds = periodSeconds
        self.wholeSweep = wholeSweep
    }

    /// What one run sweeps and what it records once it completes.
    public struct Step: Sendable, Equatable {
        /// The ids to compare, per group of partitions that stand at the same position.
        public var slices: [LateRowSlice] = []
        /// The positions to record when the run completes.
        public var positions: [Advance] = []
    }

    public struct Advance: Sendable, Equatable {
        public var partitions: [Int]
        public var position: SweepPosition

        public init(partitions: [Int], position: SweepPosition) {
            self.partitions = partitions
            self.position = position
        }
    }

    /// The step of a run at `asOf` over the `held` partitions. `everyRowRead`: the
    /// selection reads every row of them anyway (a partition without a watermark), which
    /// counts as a whole sweep.
    public func step(held: [Int], start: SelectionStart, asOf: Instant, everyRowRead: Bool) -> Step {
        var step = Step()
        guard let ids = start.userIDs else {
            // No user at all: nothing to compare, and so every row was compared.
            step.positions = [Advance(partitions: held, position: completed(at: asOf, next: 0))]
            return step
        }
        if everyRowRead {
            step.positions = [Advance(partitions: held, position: completed(at: asOf, next: ids.lowerBound))]
            return step
        }
        // Partitions swept by the same runs stand at the same position: one slice for them.
        var groups: [(position: SweepPosition?, partitions: [Int])] = []
        for partition in held {
            let position = start.sweepPositions[partition]
            if let index = groups.firstIndex(where: { $0.position == position }) {
                groups[index].partitions.append(partition)
            } else {
                groups.append((position, [partition]))
            }
        }
        for group in groups {
            guard let (ranges, position) = slice(from: group.position, ids: ids, asOf: asOf) else { continue }
            step.slices.append(LateRowSlice(partitions: group.partitions, userIDs: ranges))
            step.positions.append(Advance(partitions: group.partitions, position: position))
        }
        return step
    }

    /// The ids a run at `asOf` compares after `position`, and where that leaves the sweep;
    /// nil when no time has passed since the last sweep.
    func slice(from position: SweepPosition?, ids: ClosedRange<Int64>, asOf: Instant)
        -> (ranges: [ClosedRange<Int64>], position: SweepPosition)? {
        guard let position, !wholeSweep else {
            // Never swept (a partition from before the sweep existed), or asked for: all of it.
            let next = position.map { ids.contains($0.nextUserID) ? $0.nextUserID : ids.lowerBound } ?? ids.lowerBound
            return ([ids], completed(at: asOf, next: next))
        }
        let elapsed = asOf.microsecondsSinceEpoch - position.sweptAt.microsecondsSinceEpoch
        guard elapsed > 0 else { return nil }
        // Computed in Double: ids may span the whole Int64 range.
        let idCount = Double(ids.upperBound) - Double(ids.lowerBound) + 1
        let share = Double(elapsed) / (Double(periodSeconds) * 1_000_000)
        let wanted = (idCount * share).rounded(.up)
        guard wanted < idCount, idCount < 0x1p62 else { return ([ids], completed(at: asOf, next: nextStart(position, ids))) }
        let first = nextStart(position, ids)
        let count = Int64(wanted)
        let left = ids.upperBound - first  // ids after `first` up to the highest
        var next = position
        next.sweptAt = asOf
        next.periodSeconds = periodSeconds
        if count <= left {
            next.nextUserID = first + count
            return ([first...(first + count - 1)], next)
        }
        // The slice reaches the highest id: a whole pass ends here, and the rest of the
        // slice starts over at the lowest.
        next.completedAt = asOf
        let wrapped = count - left - 1
        next.nextUserID = ids.lowerBound + wrapped
        return wrapped == 0 ? ([first...ids.upperBound], next)
            : ([ids.lowerBound...(ids.lowerBound + wrapped - 1), first...ids.upperBound], next)
    }

    /// Where the next slice starts: the recorded id, or the lowest when the ids moved past it.
    private func nextStart(_ position: SweepPosition, _ ids: ClosedRange<Int64>) -> Int64 {
        ids.contains(position.nextUserID) ? position.nextUserID : ids.lowerBound
    }

    private func completed(at asOf: Instant, next: Int64) -> SweepPosition {
        SweepPosition(nextUserID: next, sweptAt: asOf, completedAt: asOf, periodSeconds: periodSeconds)
    }

    /// When the sweep compares `userID`'s row at the latest, if runs go on as recorded: the
    /// instant at which the position, moving through the ids once per period from where the
    /// last run left it, passes the id (the first run at or after it reads it). Nil when the
    /// partition was never swept: the next run compares every id.
    public static func reaches(_ userID: Int64, from position: SweepPosition?, ids: ClosedRange<Int64>) -> Instant? {
        guard let position, ids.contains(userID) else { return nil }
        let first = ids.contains(position.nextUserID) ? position.nextUserID : ids.lowerBound
        let idCount = Double(ids.upperBound) - Double(ids.lowerBound) + 1
        let ahead = userID >= first ? Double(userID) - Double(first) + 1
            : (Double(ids.upperBound) - Double(first) + 1) + (Double(userID) - Double(ids.lowerBound) + 1)
        let microseconds = (ahead / idCount * Double(position.periodSeconds) * 1_000_000).rounded(.up)
        return Instant(microsecondsSinceEpoch: position.sweptAt.microsecondsSinceEpoch + Int64(microseconds))
    }
}
