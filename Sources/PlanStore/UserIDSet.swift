/// A run's candidate user ids, read in batches, in little memory.
///
/// A first run or a new rules version makes every user a candidate. As `[Int64]` ten
/// million ids took 80 MB, more than half of the job's peak memory at 10M users. User
/// ids are mostly dense (a sequence, with the gaps deleted users leave), so the set
/// keeps them as bitmaps, one per 65,536 consecutive possible ids (8 KiB however many
/// it holds): ten million ids in 1.2 MiB. Should the ids be sparse (e.g. random 64-bit
/// ids), bitmaps would cost more than the ids themselves, and the set keeps a sorted
/// array instead.
///
/// Built with `Builder`, where order does not matter and an id inserted twice is kept
/// once (the selection's sources arrive unsorted and may overlap); read ascending. The
/// ids of `--user` are kept as given instead (`init(inGivenOrder:)`).
public struct UserIDSet: Sendable {
    /// Ids `key << chunkShift ..< (key + 1) << chunkShift` are one chunk's bitmap.
    static let chunkShift: Int64 = 16
    static let wordsPerChunk = (1 << chunkShift) / 64

    enum Storage: Sendable {
        /// Chunk keys ascending; chunk `i`'s words are `words[i * wordsPerChunk ..< (i + 1) * wordsPerChunk]`.
        case bitmaps(keys: [Int64], words: [UInt64])
        /// Read in this order.
        case list([Int64])
    }

    let storage: Storage
    public let count: Int

    /// The ids in the order given, repeats removed (the first one is kept).
    public init(inGivenOrder ids: [Int64]) {
        var seen = Set<Int64>()
        let unique = ids.filter { seen.insert($0).inserted }
        self.init(storage: .list(unique), count: unique.count)
    }

    /// `ids` ascending, repeats removed.
    public init(_ ids: some Sequence<Int64>) {
        var builder = Builder()
        for id in ids { builder.insert(id) }
        self = builder.build()
    }

    /// Every id of `range` (a first run's candidates, `PlanStore.everyUserByIDRange`), made a
    /// chunk at a time: full words, less the ids before the range in its first chunk and
    /// after it in its last. `range` holds at most a few times the users there are.
    init(every range: ClosedRange<Int64>) {
        let firstKey = range.lowerBound >> Self.chunkShift, lastKey = range.upperBound >> Self.chunkShift
        let chunkBits = Int64(Self.wordsPerChunk * 64)
        var words = [UInt64](repeating: ~0, count: Int(lastKey - firstKey + 1) * Self.wordsPerChunk)
        // Bit positions from the first chunk's first possible id.
        let before = Int(range.lowerBound - firstKey * chunkBits)
        let after = Int(range.upperBound - firstKey * chunkBits) + 1
        for bit in stride(from: 0, to: before, by: 64) {
            words[bit / 64] &= bit + 64 <= before ? 0 : ~0 << UInt64(before - bit)
        }
        for bit in stride(from: after / 64 * 64, to: words.count * 64, by: 64) {
            words[bit / 64] &= bit >= after ? 0 : ~(~0 << UInt64(after - bit))
        }
        self.init(storage: .bitmaps(keys: Array(firstKey...lastKey), words: words), count: Int(range.count))
    }

    init(storage: Storage, count: Int) {
        self.storage = storage
        self.count = count
    }

    public var isEmpty: Bool { count == 0 }

    /// Whether `id` is in the set: a binary search of the chunks, or of the ids of a sparse
    /// set. Not for a set made `inGivenOrder`, whose ids are not sorted.
    public func contains(_ id: Int64) -> Bool {
        switch storage {
        case .list(let list):
            if let index = Self.firstIndex(in: list, notBelow: id) { return list[index] == id }
            return false
        case .bitmaps(let keys, let words):
            let key = id >> Self.chunkShift
            guard let chunk = Self.firstIndex(in: keys, notBelow: key), keys[chunk] == key else { return false }
            let bit = Int(id - (key << Self.chunkShift))
            return words[chunk * Self.wordsPerChunk + bit / 64] & (1 << UInt64(bit % 64)) != 0
        }
    }

    /// The first index of ascending `values` whose value is at least `value`; nil if none.
    private static func firstIndex(in values: [Int64], notBelow value: Int64) -> Int? {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < values.count ? low : nil
    }

    /// Where reading stands: a chunk (or a list index) and the next possible id's bit in it.
    public struct Position: Sendable {
        var chunk = 0
        var bit = 0
        public init() {}
    }

    /// Appends up to `limit` ids from `position` on to `ids` and moves `position` past them.
    public func read(from position: inout Position, upTo limit: Int, into ids: inout [Int64]) {
        var wanted = limit
        switch storage {
        case .list(let list):
            let end = list.count - position.chunk <= wanted ? list.count : position.chunk + wanted
            if position.chunk < end { ids.append(contentsOf: list[position.chunk..<end]) }
            position.chunk = Swift.max(position.chunk, end)
        case .bitmaps(let keys, let words):
            while wanted > 0, position.chunk < keys.count {
                let base = keys[position.chunk] << Self.chunkShift
                let first = position.chunk * Self.wordsPerChunk
                while wanted > 0, position.bit < Self.wordsPerChunk * 64 {
                    // The word's ids at or after `position.bit`.
                    var word = words[first + position.bit / 64] & (~0 << UInt64(position.bit % 64))
                    if word == 0 {
                        position.bit = (position.bit / 64 + 1) * 64
                        continue
                    }
                    let wordStart = position.bit / 64 * 64
                    while word != 0, wanted > 0 {
                        let bit = wordStart + word.trailingZeroBitCount
                        ids.append(base + Int64(bit))
                        wanted -= 1
                        position.bit = bit + 1
                        word &= word - 1
                    }
                    if word == 0 { position.bit = wordStart + 64 }
                }
                if position.bit >= Self.wordsPerChunk * 64 {
                    position.chunk += 1
                    position.bit = 0
                }
            }
        }
    }

    /// Collects ids in any order, each once.
    public struct Builder: Sendable {
        /// Chunk key → the chunk's number: its words are `words[number * wordsPerChunk ...]`.
        private var chunkNumbers: [Int64: Int] = [:]
        private var chunkKeys: [Int64] = []
        private var words: [UInt64] = []
        /// Once bitmaps would cost more than the ids: every id inserted, unsorted, repeats included.
        private var sparse: [Int64]?
        private var inserted = 0
        private let expectedCount: Int
        private var lastChunk: (key: Int64, number: Int) = (.min, -1)

        /// `expectedCount`: about how many ids will come, if known (ids may arrive in any
        /// order, so the first few cannot tell how dense they all are).
        public init(expectedCount: Int = 0) {
            self.expectedCount = expectedCount
        }

        public mutating func insert(_ id: Int64) {
            inserted += 1
            guard sparse == nil, let number = chunkNumber(for: id >> UserIDSet.chunkShift) else {
                sparse!.append(id)
                return
            }
            let bit = Int(id & ((1 << UserIDSet.chunkShift) - 1))
            words[number * UserIDSet.wordsPerChunk + bit / 64] |= 1 << UInt64(bit % 64)
        }

        /// Every id of `set`: bitmaps are merged a word at a time (a selection share holds
        /// millions of ids).
        public mutating func insert(contentsOf set: UserIDSet) {
            var rest = Position()
            if case .bitmaps(let keys, let setWords) = set.storage {
                let width = UserIDSet.wordsPerChunk
                while sparse == nil, rest.chunk < keys.count {
                    let source = rest.chunk * width ..< (rest.chunk + 1) * width
                    let ids = setWords[source].reduce(0) { $0 + $1.nonzeroBitCount }
                    inserted += ids
                    guard let number = chunkNumber(for: keys[rest.chunk]) else {
                        inserted -= ids  // counted again as the chunk's ids are inserted one by one
                        break
                    }
                    for offset in 0..<width { words[number * width + offset] |= setWords[source.lowerBound + offset] }
                    rest.chunk += 1
                }
            }
            // A list, or what is left once this builder has turned into one: id by id.
            var ids: [Int64] = []
            while true {
                ids.removeAll(keepingCapacity: true)
                set.read(from: &rest, upTo: 4096, into: &ids)
                if ids.isEmpty { return }
                for id in ids { insert(id) }
            }
        }

        /// The number of chunk `key`, made if new; nil if the builder just became sparse.
        /// Ids mostly come in runs of one chunk: the last one is remembered.
        private mutating func chunkNumber(for key: Int64) -> Int? {
            if key == lastChunk.key { return lastChunk.number }
            let number: Int
            if let known = chunkNumbers[key] {
                number = known
            } else {
                number = chunkKeys.count
                chunkNumbers[key] = number
                chunkKeys.append(key)
                words.append(contentsOf: repeatElement(0, count: UserIDSet.wordsPerChunk))
                if bitmapsCostMoreThanAList {
                    becomeSparse()
                    return nil
                }
            }
            lastChunk = (key, number)
            return number
        }

        /// Bitmaps pay 8 KiB per chunk, a list 8 bytes per id. Bitmaps are kept while they
        /// cost at most the list of the ids expected (or inserted so far) and 1 MiB: dense ids
        /// stay bitmaps in whatever order they come, random 64-bit ids soon become a list.
        private var bitmapsCostMoreThanAList: Bool {
            chunkKeys.count * UserIDSet.wordsPerChunk * 8 > Swift.max(expectedCount, inserted) * 8 + 1 << 20
        }

        private mutating func becomeSparse() {
            var ids: [Int64] = []
            ids.reserveCapacity(inserted)
            let set = UserIDSet(storage: .bitmaps(keys: chunkKeys, words: words), count: 0)
            var position = Position()
            set.read(from: &position, upTo: .max, into: &ids)
            (chunkNumbers, chunkKeys, words, lastChunk) = ([:], [], [], (.min, -1))
            sparse = ids
        }

        public consuming func build() -> UserIDSet {
            if var ids = sparse {
                ids.sort()
                var kept = 0
                for index in ids.indices where kept == 0 || ids[kept - 1] != ids[index] {
                    ids[kept] = ids[index]
                    kept += 1
                }
                ids.removeLast(ids.count - kept)
                return UserIDSet(storage: .list(ids), count: ids.count)
            }
            let order = chunkKeys.indices.sorted { chunkKeys[$0] < chunkKeys[$1] }
            var sortedWords: [UInt64] = []
            sortedWords.reserveCapacity(words.count)
            var count = 0
            for number in order {
                let chunk = words[number * UserIDSet.wordsPerChunk ..< (number + 1) * UserIDSet.wordsPerChunk]
                sortedWords.append(contentsOf: chunk)
                count += chunk.reduce(0) { $0 + $1.nonzeroBitCount }
            }
            return UserIDSet(storage: .bitmaps(keys: order.map { chunkKeys[$0] }, words: sortedWords), count: count)
        }
    }
}

extension UserIDSet: Sequence {
    /// The ids in reading order.
    public struct Iterator: IteratorProtocol {
        let set: UserIDSet
        var position = Position()
        var buffer: [Int64] = []
        var taken = 0

        public mutating func next() -> Int64? {
            if taken == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                taken = 0
                set.read(from: &position, upTo: 1024, into: &buffer)
                if buffer.isEmpty { return nil }
            }
            defer { taken += 1 }
            return buffer[taken]
        }
    }

    public func makeIterator() -> Iterator { Iterator(set: self) }
    public var underestimatedCount: Int { count }
}
