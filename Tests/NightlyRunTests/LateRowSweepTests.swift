import NightlyRun
import PlanRules
import PlanStore
import Testing

/// The late-row sweep's slices, without a database: each run compares the share of the
/// user ids that the time since the last sweep is of the period, so every id is compared
/// once per period, whatever the runs' spacing.
@Suite struct LateRowSweepTests {
    static let t0 = Instant(microsecondsSinceEpoch: 1_773_100_800_000_000)  // 2026-03-10T00:00:00Z
    let sweep = LateRowSweep(periodSeconds: 7200)
    let all = Array(0..<UserPartitions.count)

    func start(_ positions: [Int: SweepPosition], ids: ClosedRange<Int64>? = 1...8000) -> SelectionStart {
        SelectionStart(oldestWatermark: Self.t0, sweepPositions: positions, userIDs: ids)
    }

    func position(next: Int64, at minutes: Int64) -> SweepPosition {
        SweepPosition(nextUserID: next, sweptAt: Self.t0.adding(minutes: minutes), completedAt: nil, periodSeconds: 7200)
    }

    @Test func aRunComparesTheShareOfTheIdsThatTheTimeSinceTheLastSweepIsOfThePeriod() {
        let positions = Dictionary(uniqueKeysWithValues: all.map { ($0, position(next: 1, at: 0)) })
        // 15 minutes of a 2-hour period: an eighth of 8,000 ids.
        let step = sweep.step(held: all, start: start(positions), asOf: Self.t0.adding(minutes: 15), everyRowRead: false)
        #expect(step.slices == [LateRowSlice(partitions: all, userIDs: [1...1000])])
        #expect(step.positions.map(\.position.nextUserID) == [1001])
        #expect(step.positions.first?.position.completedAt == nil)

        // Eight such runs compare every id once, and the eighth ends a whole pass.
        var current = positions
        var compared: [ClosedRange<Int64>] = []
        var completions: [Instant] = []
        for run in 1...8 {
            let asOf = Self.t0.adding(minutes: Int64(15 * run))
            let step = sweep.step(held: all, start: start(current), asOf: asOf, everyRowRead: false)
            compared += step.slices.flatMap(\.userIDs)
            for advance in step.positions {
                for partition in advance.partitions { current[partition] = advance.position }
                if let completed = advance.position.completedAt { completions.append(completed) }
            }
        }
        #expect(compared == [1...1000, 1001...2000, 2001...3000, 3001...4000, 4001...5000, 5001...6000,
                             6001...7000, 7001...8000])
        #expect(completions == [Self.t0.adding(minutes: 120)])
        #expect(current[0]?.nextUserID == 1)
    }

    @Test func aSliceReachingTheHighestIdStartsOverAtTheLowest() {
        let positions = [0: position(next: 7501, at: 0)]
        let step = sweep.step(held: [0], start: start(positions), asOf: Self.t0.adding(minutes: 15), everyRowRead: false)
        #expect(step.slices == [LateRowSlice(partitions: [0], userIDs: [1...500, 7501...8000])])
        #expect(step.positions.first?.position.nextUserID == 501)
        #expect(step.positions.first?.position.completedAt == Self.t0.adding(minutes: 15))
    }

    @Test func aRerunAtTheSameInstantComparesNothingAndARunAfterAnOutageComparesEveryIdOnce() {
        let positions = [0: position(next: 4001, at: 0)]
        #expect(sweep.step(held: [0], start: start(positions), asOf: Self.t0, everyRowRead: false).slices.isEmpty)
        #expect(sweep.step(held: [0], start: start(positions), asOf: Self.t0.adding(minutes: -30),
                           everyRowRead: false).slices.isEmpty)
        let afterOutage = sweep.step(held: [0], start: start(positions), asOf: Self.t0.adding(minutes: 600),
                                     everyRowRead: false)
        #expect(afterOutage.slices == [LateRowSlice(partitions: [0], userIDs: [1...8000])])
        #expect(afterOutage.positions.first?.position.completedAt == Self.t0.adding(minutes: 600))
    }

    @Test func partitionsNeverSweptOrAskedForAreComparedWhole() {
        // Partition 1 stands at a position; partition 2 was never swept (a database from
        // before the sweep): all of its ids at once.
        let step = sweep.step(held: [1, 2], start: start([1: position(next: 1, at: 0)]),
                              asOf: Self.t0.adding(minutes: 15), everyRowRead: false)
        #expect(step.slices == [LateRowSlice(partitions: [1], userIDs: [1...1000]),
                                LateRowSlice(partitions: [2], userIDs: [1...8000])])
        let asked = LateRowSweep(periodSeconds: 7200, wholeSweep: true)
            .step(held: [1], start: start([1: position(next: 3001, at: 0)]), asOf: Self.t0.adding(minutes: 15),
                  everyRowRead: false)
        #expect(asked.slices == [LateRowSlice(partitions: [1], userIDs: [1...8000])])
        #expect(asked.positions.first?.position.nextUserID == 3001)
        #expect(asked.positions.first?.position.completedAt == Self.t0.adding(minutes: 15))
    }

    @Test func aRunThatReadsEveryRowOrFindsNoUserCountsAsAWholeSweep() {
        let everyRow = sweep.step(held: all, start: start([:]), asOf: Self.t0, everyRowRead: true)
        #expect(everyRow.slices.isEmpty)
        #expect(everyRow.positions == [LateRowSweep.Advance(partitions: all, position: SweepPosition(
            nextUserID: 1, sweptAt: Self.t0, completedAt: Self.t0, periodSeconds: 7200))])
        let empty = sweep.step(held: all, start: start([:], ids: nil), asOf: Self.t0, everyRowRead: false)
        #expect(empty.slices.isEmpty)
        #expect(empty.positions.first?.position.completedAt == Self.t0)
    }

    @Test func theSweepReachesAnIdWhenThePositionMovingOncePerPeriodPassesIt() {
        let position = position(next: 2001, at: 0)
        // 2,000 ids ahead of position 2001 on 8,000: a quarter of the period.
        #expect(LateRowSweep.reaches(4000, from: position, ids: 1...8000) == Self.t0.adding(minutes: 30))
        // Behind the position: after the highest id and round again.
        #expect(LateRowSweep.reaches(1000, from: position, ids: 1...8000) == Self.t0.adding(minutes: 105))
        #expect(LateRowSweep.reaches(1000, from: nil, ids: 1...8000) == nil)
    }
}
