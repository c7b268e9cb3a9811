/// What the job needs from one compiled zone file, `/usr/share/zoneinfo/<name>`
/// (the TZif format of RFC 8536): the listed changes of UTC offset and the footer rule
/// for the time after them. Designations and DST flags are not needed: a plan date
/// depends on the offset only.
struct TZifFile: Sendable {
    /// Offset (seconds east of UTC) before the first transition: time type 0 (RFC 8536 §3.2).
    var initialOffset: Int
    /// Strictly increasing UTC seconds since the epoch at which the offset changes.
    var transitionTimes: [Int64]
    /// `offsetsAfter[i]` is in effect from `transitionTimes[i]` on.
    var offsetsAfter: [Int]
    /// The footer's TZ string (version 2+ files); nil in version 1 files or when empty.
    var footer: PosixTZRule?
}

extension TZifFile {
    /// Parses a TZif file: the 64-bit data block of version 2+ files, else the 32-bit one.
    /// Files with leap-second records (the `right/` zones) are refused: their times are not
    /// UTC seconds, and no known zone name points at one.
    init(bytes: [UInt8]) throws(TZifError) {
        var reader = Reader(bytes: bytes)
        let v1 = try reader.header()
        guard v1.version >= 2 else {
            self = try Self.dataBlock(&reader, v1, timeSize: 4)
            return
        }
        try reader.skip(v1.dataBlockLength(timeSize: 4))
        let v2 = try reader.header()
        var file = try Self.dataBlock(&reader, v2, timeSize: 8)
        file.footer = try reader.footer()
        self = file
    }

    /// Offsets RFC 8536 allows (−24:59:59 … +25:59:59); anything else means a broken file.
    static let plausibleOffsets = -89_999...93_599

    private static func dataBlock(_ reader: inout Reader, _ header: Header, timeSize: Int) throws(TZifError) -> TZifFile {
        guard header.leapCount == 0 else { throw .leapSeconds }
        guard header.typeCount >= 1 else { throw .malformed("no local time types") }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let t = timeSize == 8 ? try reader.int64() : Int64(try reader.int32())
            guard times.last.map({ $0 < t }) ?? true else { throw .malformed("transition times not increasing") }
            times.append(t)
        }
        var typeIndices: [Int] = []
        typeIndices.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let index = Int(try reader.uint8())
            guard index < header.typeCount else { throw .malformed("time type index out of range") }
            typeIndices.append(index)
        }
        var typeOffsets: [Int] = []
        for _ in 0..<header.typeCount {
            let offset = Int(try reader.int32())
            guard plausibleOffsets.contains(offset) else { throw .malformed("UT offset \(offset) out of range") }
            typeOffsets.append(offset)
            try reader.skip(2)  // isdst, desigidx
        }
        try reader.skip(header.charCount + header.isStdCount + header.isUTCount)
        return TZifFile(initialOffset: typeOffsets[0], transitionTimes: times,
                        offsetsAfter: typeIndices.map { typeOffsets[$0] }, footer: nil)
    }

    private struct Header {
        var version: Int
        var isUTCount, isStdCount, leapCount, timeCount, typeCount, charCount: Int

        func dataBlockLength(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + charCount
                + leapCount * (timeSize + 4) + isStdCount + isUTCount
        }
    }

    /// Big-endian reads that throw instead of trapping on a short file.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skip(_ count: Int) throws(TZifError) {
            guard count >= 0, count <= bytes.count - index else { throw .truncated }
            index += count
        }

        mutating func uint8() throws(TZifError) -> UInt8 {
            guard index < bytes.count else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func uint32() throws(TZifError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 { value = value << 8 | UInt32(try uint8()) }
            return value
        }

        mutating func int32() throws(TZifError) -> Int32 { Int32(bitPattern: try uint32()) }

        mutating func int64() throws(TZifError) -> Int64 {
            let high = UInt64(try uint32()), low = UInt64(try uint32())
            return Int64(bitPattern: high << 32 | low)
        }

        /// Counts are unsigned 32-bit; anything near that size is a broken file, which the
        /// bounds checks of `skip` and the reads then report as truncated.
        mutating func count() throws(TZifError) -> Int { Int(try uint32()) }

        mutating func header() throws(TZifError) -> Header {
            guard bytes.count - index >= 4, bytes[index..<index + 4].elementsEqual("TZif".utf8) else {
                throw .notTZif
            }
            guard bytes.count - index >= 44 else { throw .truncated }
            let versionByte = bytes[index + 4]
            let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
            guard version >= 1 else { throw .malformed("unknown version byte \(versionByte)") }
            try skip(20)
            return Header(version: version, isUTCount: try count(), isStdCount: try count(),
                          leapCount: try count(), timeCount: try count(), typeCount: try count(),
                          charCount: try count())
        }

        /// `\n<TZ string>\n`; an empty TZ string means "no rule".
        mutating func footer() throws(TZifError) -> PosixTZRule? {
            guard try uint8() == UInt8(ascii: "\n") else { throw .malformed("footer does not start with a newline") }
            guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { throw .truncated }
            let text = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1
            if text.isEmpty { return nil }
            guard let rule = PosixTZRule(text) else { throw .malformed("unsupported footer TZ string '\(text)'") }
            return rule
        }
    }
}

/// Why a zone file could not be used.
public enum TZifError: Error, Hashable, Sendable, CustomStringConvertible {
    case notTZif
    case truncated
    case leapSeconds
    case malformed(String)

    public var description: String {
        switch self {
        case .notTZif: return "not a TZif file"
        case .truncated: return "TZif file is truncated"
        case .leapSeconds: return "TZif file has leap-second records (a right/ zone)"
        case .malformed(let detail): return "malformed TZif file: \(detail)"
        }
    }
}
