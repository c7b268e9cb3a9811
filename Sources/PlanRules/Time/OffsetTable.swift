/// One zone's UTC offset over all time, as a sorted table of changes searched by bisection.
///
/// Built once per zone from its TZif file. The footer rule, which governs the time after
/// the file's last transition, is unrolled into the table for 400 years: POSIX rules are
/// Gregorian-calendar rules, and the Gregorian calendar repeats exactly every 400 years
/// (146 097 days, a whole number of weeks), so any later instant is answered by shifting
/// it back a whole number of cycles. One search serves every date, none is approximate.
struct OffsetTable: Sendable {
    /// Strictly increasing UTC seconds at which the offset changes.
    let times: [Int64]
    /// `offsets[0]` applies before `times[0]`; `offsets[i + 1]` from `times[i]` on.
    private let offsets: [Int]
    /// The greatest offset anywhere in the table: no instant earlier than
    /// `wall − maxOffset` can show the wall-clock time `wall`.
    private let maxOffset: Int
    /// From `cycle.start` on, offsets repeat every `cycle.length` seconds; nil when the
    /// zone keeps one offset after its last transition.
    private let cycle: Cycle?

    private struct Cycle: Sendable {
        var start: Int64
        var length: Int64
    }

    /// The 400-year Gregorian cycle in seconds.
    static let gregorianCycleSeconds: Int64 = 146_097 * 86_400

    init(_ file: TZifFile) {
        var times = file.transitionTimes
        var offsets = [file.initialOffset] + file.offsetsAfter
        var cycle: Cycle? = nil
        if let rule = file.footer, rule.daylight != nil {
            // The rule's changes from the year of the last listed transition through one
            // year past a full cycle; the table then covers [cycle start, + cycle + 1 year).
            // A file without transitions follows its rule at all times; from 1900 on is
            // enough for any date the job handles.
            let lastListed = times.last
            let firstYear = lastListed.map { LocalDate(wallSecondsSinceEpoch: $0).year } ?? 1900
            var generated: [(at: Int64, sequence: Int, offset: Int)] = []
            generated.reserveCapacity(2 * 403)
            for year in firstYear...(firstYear + 402) {
                guard let (start, end) = rule.transitions(inYear: year) else { continue }
                generated.append((start.at, generated.count, start.offset))
                generated.append((end.at, generated.count, end.offset))
            }
            // When one year's daylight time ends at the very second the next year's begins
            // (all-year daylight time, `J365/25`), the later change in rule order wins.
            generated.sort { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
            times.reserveCapacity(times.count + generated.count)
            offsets.reserveCapacity(offsets.count + generated.count)
            for (index, change) in generated.enumerated() {
                guard lastListed.map({ change.at > $0 }) ?? true else { continue }
                if index + 1 < generated.count, generated[index + 1].at == change.at { continue }
                if let current = offsets.last, current == change.offset { continue }
                times.append(change.at)
                offsets.append(change.offset)
            }
            let cycleStart = Int64(LocalDate(year: firstYear + 1, month: 1, day: 1).daysSinceEpoch) * 86_400
            cycle = Cycle(start: cycleStart, length: Self.gregorianCycleSeconds)
        }
        self.times = times
        self.offsets = offsets
        self.maxOffset = offsets.max() ?? file.initialOffset
        self.cycle = cycle
    }

    /// Seconds east of UTC in effect at UTC second `t`.
    func offset(at t: Int64) -> Int {
        var t = t
        if let cycle, t >= cycle.start + cycle.length {
            t -= (t - cycle.start) / cycle.length * cycle.length
        }
        return offsets[countOfTimes(atOrBefore: t)]
    }

    /// The first UTC second whose wall-clock time (UTC second + offset) is at least `wall`.
    ///
    /// Wall time rises with the UTC second inside each stretch of constant offset, so
    /// the answer is the earliest stretch holding such a second, starting from the
    /// stretch that holds `wall − maxOffset` (nothing earlier can qualify). A jump forward
    /// over `wall` (a skipped midnight) gives the first second after the jump; a jump back
    /// (a fall-back) cannot make the answer later, because the first qualifying second is
    /// taken.
    func firstSecond(atOrAfterWall wall: Int64) -> Int64 {
        let earliest = wall - Int64(maxOffset)
        if let cycle, earliest >= cycle.start + cycle.length {
            let shift = (earliest - cycle.start) / cycle.length * cycle.length
            return firstSecond(inTableAtOrAfterWall: wall - shift) + shift
        }
        return firstSecond(inTableAtOrAfterWall: wall)
    }

    private func firstSecond(inTableAtOrAfterWall wall: Int64) -> Int64 {
        var stretch = countOfTimes(atOrBefore: wall - Int64(maxOffset))
        while true {
            let candidate = wall - Int64(offsets[stretch])
            let start = stretch == 0 ? Int64.min : times[stretch - 1]
            let first = max(candidate, start)
            if stretch == times.count || first < times[stretch] { return first }
            stretch += 1
        }
    }

    /// How many change times are ≤ `t`: the index into `offsets` of the offset at `t`.
    private func countOfTimes(atOrBefore t: Int64) -> Int {
        times.withUnsafeBufferPointer { buffer in
            var low = 0, high = buffer.count
            while low < high {
                let middle = (low + high) / 2
                if buffer[middle] <= t { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
