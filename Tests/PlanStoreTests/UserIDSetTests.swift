@testable import PlanStore
import TestSupport
import Testing

/// A run's candidates as a compact set: every id once, ascending, whatever order and
/// repeats they came in, and read back in batches exactly as a sorted array would be.
@Suite struct UserIDSetTests {
    /// Reads `set` in batches of `size`, as the batch queue does.
    func batches(of set: UserIDSet, size: Int) -> [[Int64]] {
        var position = UserIDSet.Position()
        var batches: [[Int64]] = []
        while true {
            var batch: [Int64] = []
            set.read(from: &position, upTo: size, into: &batch)
            if batch.isEmpty { return batches }
            batches.append(batch)
        }
    }

    func isBitmaps(_ set: UserIDSet) -> Bool {
        if case .bitmaps = set.storage { return true }
        return false
    }

    @Test func denseIdsInAnyOrderAreReadAscendingOnceEach() {
        var random = SplitMix64(seed: 7)
        // Ids of one partition share out of 1..300,000 (every fourth), some deleted,
        // repeated, in shuffled order: chunk boundaries (65,536) fall inside the range.
        var ids = (1...300_000).map(Int64.init).filter { $0 % 4 == 1 && $0 % 1_000 != 1 }
        ids += ids.prefix(5_000)
        ids.shuffle(using: &random)
        let set = UserIDSet(ids)
        let expected = Array(Set(ids)).sorted()
        #expect(set.count == expected.count)
        #expect(set.map { $0 } == expected)
        let keptAsBitmaps = isBitmaps(set)
        #expect(keptAsBitmaps, "dense ids are kept as bitmaps")
        for size in [1, 7, 2_000, 100_000] {
            let read = batches(of: set, size: size)
            #expect(read.flatMap { $0 } == expected)
            #expect(read.dropLast().allSatisfy { $0.count == size })
        }
    }

    @Test func idsAtChunkEdgesAndBelowZeroKeepTheirOrder() {
        let ids: [Int64] = [65_536, -1, 0, 65_535, -65_536, -65_537, 131_071, 1, Int64.max, Int64.min]
        let set = UserIDSet(ids)
        #expect(set.map { $0 } == ids.sorted())
        #expect(batches(of: set, size: 3).flatMap { $0 } == ids.sorted())
    }

    @Test func sparseIdsBecomeASortedListWithTheSameReading() {
        var random = SplitMix64(seed: 42)
        var ids = (0..<20_000).map { _ in Int64(bitPattern: random.next()) }
        ids += ids.suffix(100)
        let set = UserIDSet(ids)
        let keptAsBitmaps = isBitmaps(set)
        #expect(!keptAsBitmaps, "bitmaps of random 64-bit ids would cost 8 KiB an id")
        #expect(set.map { $0 } == Array(Set(ids)).sorted())
        #expect(batches(of: set, size: 999).flatMap { $0 } == Array(Set(ids)).sorted())
    }

    /// A first run's ids may come in any order (rows move on disk when updated): told how
    /// many to expect, the set keeps them as bitmaps from the first ones on. Untold, the
    /// first scattered ids look sparse once their bitmaps pass a mebibyte.
    @Test func theExpectedCountKeepsScatteredDenseIdsAsBitmaps() {
        var random = SplitMix64(seed: 3)
        let wide = (0..<1_000).map { _ in Int64.random(in: 1...20_000_000, using: &random) }
        var told = UserIDSet.Builder(expectedCount: 20_000_000)
        for id in wide { told.insert(id) }
        var untold = UserIDSet.Builder()
        for id in wide { untold.insert(id) }
        let (toldKeepsBitmaps, untoldKeepsBitmaps) = (isBitmaps(told.build()), isBitmaps(untold.build()))
        #expect(toldKeepsBitmaps)
        #expect(!untoldKeepsBitmaps, "1,000 ids over up to 306 chunks (2.4 MiB of bitmaps): a list is smaller")

        let ids = (1...1_000_000).map(Int64.init).shuffled(using: &random)

        var all = UserIDSet.Builder(expectedCount: ids.count)
        for id in ids { all.insert(id) }
        let set = all.build()
        let keptAsBitmaps = isBitmaps(set)
        #expect(keptAsBitmaps && set.count == 1_000_000)
        if case .bitmaps(let keys, let words) = set.storage {
            let (chunks, bytes) = (keys.count, words.count * 8)
            #expect(chunks == 16 && bytes == 16 * 8_192, "1M ids in 128 KiB, not 8 MB")
        }
        #expect(Array(set.prefix(1)) == [1] && set.reduce(0, +) == 1_000_000 * 1_000_001 / 2)
    }

    @Test func theUnionOfSharesHoldsEveryIdOnce() {
        let shares: [[Int64]] = [[1, 5, 9, 70_000], [2, 6], [], [5, 3, 200_000, -4]]
        var union = UserIDSet.Builder()
        for share in shares { union.insert(contentsOf: UserIDSet(share)) }
        #expect(union.build().map { $0 } == Array(Set(shares.flatMap { $0 })).sorted())
        var sparse = UserIDSet.Builder()
        sparse.insert(contentsOf: UserIDSet((0..<300).map { Int64($0) << 40 }))
        sparse.insert(contentsOf: UserIDSet([7, 1 << 40]))
        #expect(sparse.build().map { $0 } == ([7] + (0..<300).map { Int64($0) << 40 }).sorted())

        // Bitmaps (told to expect many ids) holding one id per chunk: merged into a builder
        // told nothing, they turn it into a list part way through, and no id is lost.
        let spread = (0..<400).map { Int64($0) * 65_536 + Int64($0 % 7) }
        var told = UserIDSet.Builder(expectedCount: 1_000_000)
        for id in spread { told.insert(id) }
        let bitmaps = told.build()
        var merged = UserIDSet.Builder()
        merged.insert(contentsOf: bitmaps)
        merged.insert(contentsOf: UserIDSet([3, 65_536 * 500]))
        let mergedSet = merged.build()
        let (bitmapsIn, bitmapsOut) = (isBitmaps(bitmaps), isBitmaps(mergedSet))
        #expect(bitmapsIn && !bitmapsOut)
        #expect(mergedSet.map { $0 } == (spread + [3, 65_536 * 500]).sorted())
    }

    /// A first run's range of ids (`init(every:)`, made a word at a time) reads exactly as
    /// the same ids inserted one by one: ranges starting and ending inside a word, on a
    /// word's or a chunk's edge, across chunks, below zero, and of one id.
    @Test func everyIdOfARangeReadsAsTheIdsInsertedOneByOne() {
        let ranges: [ClosedRange<Int64>] = [
            1...100_000, 0...63, 64...127, 3...5, 7...7, 65_535...65_536, 65_536...131_071,
            -70_000...(-1), -5...200_000, 1_000_001...1_000_063, 63...64,
        ]
        for range in ranges {
            let set = UserIDSet(every: range)
            #expect(set.count == range.count, "\(range)")
            #expect(set.map { $0 } == Array(range), "\(range)")
            #expect(batches(of: set, size: 2_000).flatMap { $0 } == Array(range), "\(range)")
            var union = UserIDSet.Builder()
            union.insert(contentsOf: set)
            #expect(union.build().map { $0 } == Array(range), "\(range)")
        }
    }

    @Test func givenOrderIsKeptWithoutRepeats() {
        let set = UserIDSet(inGivenOrder: [42, 7, 42, -3, 7])
        #expect(set.map { $0 } == [42, 7, -3])
        #expect(set.count == 3)
        #expect(batches(of: set, size: 2) == [[42, 7], [-3]])
        #expect(batches(of: set, size: .max) == [[42, 7, -3]])
    }
}
